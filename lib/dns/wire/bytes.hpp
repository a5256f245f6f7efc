// Big-endian loads and stores on message bytes (RFC 1035 §2.3.2: network order):
// src/util/big_endian.hpp, plus offsets into a message held as a string_view.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/big_endian.hpp"

namespace keel::dns {

using keel::util::load16;
using keel::util::load32;
using keel::util::store16;
using keel::util::store32;

inline uint16_t load16(std::string_view s, std::size_t pos) {
  return load16(reinterpret_cast<const uint8_t*>(s.data() + pos));
}
inline uint32_t load32(std::string_view s, std::size_t pos) {
  return load32(reinterpret_cast<const uint8_t*>(s.data() + pos));
}

}  // namespace keel::dns
