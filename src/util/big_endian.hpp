// Big-endian (network order) loads and stores of 16-, 32- and 64-bit values, for
// every wire format Keel reads and writes (the stack's headers, DNS). Header
// only, no kernel dependency: host libraries use it too.
#pragma once
#include <cstdint>

namespace keel::util {

inline uint16_t load16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint32_t load32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
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

inline uint64_t load64(const uint8_t* p) { return uint64_t{load32(p)} << 32 | load32(p + 4); }
inline void store64(uint8_t* p, uint64_t v) {
  store32(p, uint32_t(v >> 32));
  store32(p + 4, uint32_t(v));
}

}  // namespace keel::util
