// Big-endian loads and stores on message bytes (RFC 1035 §2.3.2: network order).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel::dns {

inline uint16_t load16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint32_t load32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline uint16_t load16(std::string_view s, std::size_t pos) {
  return load16(reinterpret_cast<const uint8_t*>(s.data() + pos));
}
inline uint32_t load32(std::string_view s, std::size_t pos) {
  return load32(reinterpret_cast<const uint8_t*>(s.data() + pos));
}
inline void store16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}
inline void store32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}

}  // namespace keel::dns
