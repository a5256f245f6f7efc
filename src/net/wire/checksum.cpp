#include "checksum.hpp"

#include <cstring>

namespace net::wire {

uint32_t checksum_add(uint32_t sum, const uint8_t* data, std::size_t len) {
  // 64-bit accumulation of 32-bit little-endian loads; end-around carries are
  // folded at the end (RFC 1071 §4.1's technique, wider).
  uint64_t acc = 0;
  while (len >= 8) {
    uint32_t a, b;
    std::memcpy(&a, data, 4);
    std::memcpy(&b, data + 4, 4);
    acc += uint64_t(a) + b;
    data += 8;
    len -= 8;
  }
  while (len >= 2) {
    uint16_t w;
    std::memcpy(&w, data, 2);
    acc += w;
    data += 2;
    len -= 2;
  }
  if (len) acc += data[0];  // little-endian: the odd byte is the high byte of a BE word
  return sum + checksum_finish_host_order(acc);
}

}  // namespace net::wire
