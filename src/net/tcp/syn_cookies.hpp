// SYN cookies: when a listener's queue of handshakes is full (or the
// connection table is), the SYN-ACK's sequence number carries what the
// connection needs and the listener keeps nothing; the peer's ACK brings
// it back (RFC 4987 §3.6). The number is
//   bits 31..27  a counter of 64-second periods (the cookie's age)
//   bits 26..24  the index of the MSS in a table (the largest <= the peer's)
//   bits 23..0   a keyed hash of the 4-tuple, the counter and the peer's ISN
// With timestamps, the low 5 bits of our TSval carry the peer's window
// scale and SACK-permitted (as Linux does), echoed back in its TSecr;
// without, the connection goes on without either.
#pragma once
#include <cstdint>
#include <optional>

#include "connection_key.hpp"
#include "secrets.hpp"

namespace net::tcp {

class SynCookies {
 public:
  static constexpr uint64_t period_ns = 64ull * 1'000'000'000;
  static constexpr uint32_t periods_valid = 2;  // a cookie lives 64 to 128 s

  // Our ISN for a SYN with sequence number `peer_isn` and MSS `peer_mss`.
  static uint32_t make(const Secrets& secrets, const ConnectionKey& key, uint32_t peer_isn,
                       uint16_t peer_mss, uint64_t now_ns);
  // The MSS a valid cookie carries (the ACK acknowledges cookie + 1).
  static std::optional<uint16_t> check(const Secrets& secrets, const ConnectionKey& key,
                                       uint32_t peer_isn, uint32_t cookie, uint64_t now_ns);

  struct Options {
    std::optional<uint8_t> window_scale;
    bool sack = false;
  };
  // A TSval no later than `tsval` whose low bits carry `options`.
  static uint32_t encode_timestamp(uint32_t tsval, const Options& options);
  static Options decode_timestamp(uint32_t echo);
};

}  // namespace net::tcp
