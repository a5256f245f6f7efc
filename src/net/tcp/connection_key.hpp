// What names a connection: its two endpoints. The key of the connection
// table, hashed with a secret key (SipHash) since the network picks it.
// FIXME(IPv6): a family-neutral key (16-byte addresses) when IPv6 comes;
// the table and everything past it take the key as an opaque value.
#pragma once
#include <cstdint>
#include <cstring>
#include <net/ip4_addr.hpp>

#include "util/siphash.hpp"

namespace net::tcp {

struct ConnectionKey {
  ip4::Addr local, remote;
  uint16_t local_port = 0, remote_port = 0;

  friend bool operator==(const ConnectionKey&, const ConnectionKey&) = default;
  // The 12 bytes hashed (no padding).
  void bytes(uint8_t out[12]) const {
    std::memcpy(out, &local.value, 4);
    std::memcpy(out + 4, &remote.value, 4);
    std::memcpy(out + 8, &local_port, 2);
    std::memcpy(out + 10, &remote_port, 2);
  }
};

struct ConnectionKeyHash {
  keel::util::SipKey key;
  std::size_t operator()(const ConnectionKey& k) const {
    uint8_t b[12];
    k.bytes(b);
    return std::size_t(keel::util::siphash13(key, b, sizeof b));
  }
};

}  // namespace net::tcp
