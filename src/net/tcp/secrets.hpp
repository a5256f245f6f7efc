// The secrets TCP keys its numbers with, drawn once when the stack starts
// (getrandom(): in an image keel_random_bytes, RDRAND where the CPU has it,
// else a TSC-seeded xorshift; docs/net/tcp.md), and what they make:
// - initial sequence numbers, RFC 6528 §3: ISN = M + F(4-tuple, secret),
//   M a 4-microsecond clock and F SipHash-2-4;
// - each connection's timestamp offset (RFC 7323 §7.1), so TSval says
//   nothing about the host's uptime;
// - the hash of SYN cookies; the key of the connection table.
#pragma once
#include <cstdint>

#include "connection_key.hpp"
#include "util/siphash.hpp"

namespace net::tcp {

class Secrets {
 public:
  Secrets();  // from getrandom()

  uint32_t initial_sequence(const ConnectionKey& key, uint64_t now_ns) const;
  uint32_t timestamp_offset(const ConnectionKey& key) const;
  uint32_t cookie_hash(const ConnectionKey& key, uint32_t counter, uint32_t peer_isn) const;
  keel::util::SipKey table_key() const { return table_; }

 private:
  keel::util::SipKey isn_, timestamps_, cookies_, table_;
};

}  // namespace net::tcp
