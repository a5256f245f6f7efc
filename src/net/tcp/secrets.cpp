#include "secrets.hpp"

#include <sys/random.h>

#include <cstring>

namespace net::tcp {
namespace {

// RFC 6528 §3: M is "a timer that is incremented every 4 microseconds".
constexpr uint64_t isn_tick_ns = 4000;

keel::util::SipKey random_key() {
  keel::util::SipKey k;
  uint8_t bytes[16] = {};
  // getrandom never fails for 16 bytes once the pool is up; if it does,
  // the key is still distinct per field below but not secret.
  if (getrandom(bytes, sizeof bytes, 0) != ssize_t(sizeof bytes))
    std::memset(bytes, 0x5a, sizeof bytes);
  std::memcpy(&k.k0, bytes, 8);
  std::memcpy(&k.k1, bytes + 8, 8);
  return k;
}

uint64_t hash24(const keel::util::SipKey& key, const ConnectionKey& c, uint32_t a = 0,
                uint32_t b = 0) {
  // The 4-tuple of either family (RFC 6528 §3 for IPv4 and IPv6 alike).
  uint8_t buffer[ConnectionKey::max_bytes + 8];
  std::size_t n = c.bytes(buffer);
  std::memcpy(buffer + n, &a, 4);
  std::memcpy(buffer + n + 4, &b, 4);
  return keel::util::siphash<2, 4>(key, buffer, n + 8);
}

}  // namespace

Secrets::Secrets()
    : isn_(random_key()), timestamps_(random_key()), cookies_(random_key()), table_(random_key()) {}

uint32_t Secrets::initial_sequence(const ConnectionKey& key, uint64_t now_ns) const {
  return uint32_t(now_ns / isn_tick_ns) + uint32_t(hash24(isn_, key));
}

uint32_t Secrets::timestamp_offset(const ConnectionKey& key) const {
  return uint32_t(hash24(timestamps_, key));
}

uint32_t Secrets::cookie_hash(const ConnectionKey& key, uint32_t counter, uint32_t peer_isn) const {
  return uint32_t(hash24(cookies_, key, counter, peer_isn));
}

}  // namespace net::tcp
