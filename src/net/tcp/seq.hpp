// Sequence number arithmetic (RFC 9293 §3.4): numbers are compared modulo
// 2^32, a before b when the distance from a to b is below 2^31.
#pragma once
#include <cstdint>

namespace net::tcp {

inline bool seq_lt(uint32_t a, uint32_t b) { return int32_t(a - b) < 0; }
inline bool seq_le(uint32_t a, uint32_t b) { return int32_t(a - b) <= 0; }
inline bool seq_gt(uint32_t a, uint32_t b) { return int32_t(a - b) > 0; }
inline bool seq_ge(uint32_t a, uint32_t b) { return int32_t(a - b) >= 0; }
inline uint32_t seq_max(uint32_t a, uint32_t b) { return seq_gt(a, b) ? a : b; }
inline uint32_t seq_min(uint32_t a, uint32_t b) { return seq_lt(a, b) ? a : b; }
// Whether `s` lies in [left, right).
inline bool seq_in(uint32_t s, uint32_t left, uint32_t right) {
  return seq_le(left, s) && seq_lt(s, right);
}

}  // namespace net::tcp
