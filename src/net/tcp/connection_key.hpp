// What names a connection: its two endpoints, of either family. The key of
// the connection table, hashed with a secret key (SipHash) since the
// network picks it. An IPv4 connection holds its addresses IPv4-mapped
// (::ffff:a.b.c.d, RFC 4291 §2.5.5.2); IPv6 input drops mapped addresses
// (docs/net/ipv6.md), so the two families never meet in one key. An IPv4
// key hashes the same 12 bytes as before IPv6 came (decision 0131): the
// table costs IPv4 no more than it did.
#pragma once
#include <cstdint>
#include <cstring>
#include <net/address.hpp>
#include <net/ip4_addr.hpp>

#include "util/siphash.hpp"

namespace net::tcp {

struct ConnectionKey {
  static constexpr std::size_t max_bytes = 36;  // two IPv6 addresses, two ports

  ip6::Addr local, remote;
  uint16_t local_port = 0, remote_port = 0;

  ConnectionKey() = default;
  ConnectionKey(ip4::Addr l, ip4::Addr r, uint16_t lp, uint16_t rp)
      : local(mapped(l)), remote(mapped(r)), local_port(lp), remote_port(rp) {}
  ConnectionKey(const ip6::Addr& l, const ip6::Addr& r, uint16_t lp, uint16_t rp)
      : local(l), remote(r), local_port(lp), remote_port(rp) {}

  bool is_ip6() const { return !is_mapped(local); }
  ip4::Addr local4() const { return unmapped(local); }
  ip4::Addr remote4() const { return unmapped(remote); }
  Address local_address() const { return is_ip6() ? Address(local) : Address(local4()); }
  Address remote_address() const { return is_ip6() ? Address(remote) : Address(remote4()); }

  friend bool operator==(const ConnectionKey&, const ConnectionKey&) = default;
  // The bytes hashed (no padding): 12 for IPv4 (the addresses' 4 bytes),
  // 36 for IPv6. Returns how many were written.
  std::size_t bytes(uint8_t out[max_bytes]) const {
    std::size_t n = is_ip6() ? 16 : 4;
    std::memcpy(out, local.bytes.data() + 16 - n, n);
    std::memcpy(out + n, remote.bytes.data() + 16 - n, n);
    std::memcpy(out + 2 * n, &local_port, 2);
    std::memcpy(out + 2 * n + 2, &remote_port, 2);
    return 2 * n + 4;
  }

  static ip6::Addr mapped(ip4::Addr a) {
    ip6::Addr m;
    m.bytes[10] = m.bytes[11] = 0xff;
    std::memcpy(m.bytes.data() + 12, &a.value, 4);
    return m;
  }
  static bool is_mapped(const ip6::Addr& a) {
    static constexpr uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return std::memcmp(a.bytes.data(), prefix, sizeof prefix) == 0;
  }
  static ip4::Addr unmapped(const ip6::Addr& a) {
    ip4::Addr r;
    std::memcpy(&r.value, a.bytes.data() + 12, 4);
    return r;
  }
};

struct ConnectionKeyHash {
  keel::util::SipKey key;
  std::size_t operator()(const ConnectionKey& k) const {
    uint8_t b[ConnectionKey::max_bytes];
    std::size_t n = k.bytes(b);
    return std::size_t(keel::util::siphash13(key, b, n));
  }
};

}  // namespace net::tcp
