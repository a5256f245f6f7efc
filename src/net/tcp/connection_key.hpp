// What names a connection: its two endpoints, of either family. The key of
// the connection table, hashed with a secret key (SipHash) since the
// network picks it. An IPv4 connection holds its addresses IPv4-mapped
// (::ffff:a.b.c.d, RFC 4291 §2.5.5.2); IPv6 input drops mapped addresses
// (docs/net/ipv6.md), so the two families never meet in one key. An IPv4
// key hashes the same 12 bytes as before IPv6 came, and the table keeps
// IPv4 keys in 12 bytes (connection_table.hpp, decision 0131).
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

  // The 36 bytes have no padding: one fixed-size compare.
  friend bool operator==(const ConnectionKey& a, const ConnectionKey& b) {
    return std::memcmp(&a, &b, max_bytes) == 0;
  }
  // The bytes hashed: 12 for IPv4 (the addresses' 4 bytes, as before IPv6
  // came), 36 for IPv6. Returns how many were written.
  std::size_t bytes(uint8_t out[max_bytes]) const {
    if (!is_ip6()) {
      std::memcpy(out, local.bytes.data() + 12, 4);
      std::memcpy(out + 4, remote.bytes.data() + 12, 4);
      std::memcpy(out + 8, &local_port, 4);  // both ports
      return 12;
    }
    std::memcpy(out, this, max_bytes);
    return max_bytes;
  }

  static ip6::Addr mapped(ip4::Addr a) {
    ip6::Addr m;
    m.bytes[10] = m.bytes[11] = 0xff;
    std::memcpy(m.bytes.data() + 12, &a.value, 4);
    return m;
  }
  static bool is_mapped(const ip6::Addr& a) {
    // Two loads: the first 8 bytes zero, the next 4 ::ffff (0, 0, ff, ff).
    uint64_t high;
    uint32_t middle;
    std::memcpy(&high, a.bytes.data(), 8);
    std::memcpy(&middle, a.bytes.data() + 8, 4);
    static constexpr uint8_t mapped_middle[4] = {0, 0, 0xff, 0xff};
    uint32_t want;
    std::memcpy(&want, mapped_middle, 4);
    return high == 0 && middle == want;
  }
  static ip4::Addr unmapped(const ip6::Addr& a) {
    ip4::Addr r;
    std::memcpy(&r.value, a.bytes.data() + 12, 4);
    return r;
  }
};
static_assert(sizeof(ConnectionKey) == ConnectionKey::max_bytes, "no padding: memcmp and hashing");

struct ConnectionKeyHash {
  keel::util::SipKey key;
  std::size_t operator()(const ConnectionKey& k) const {
    uint8_t b[ConnectionKey::max_bytes];
    std::size_t n = k.bytes(b);
    return std::size_t(keel::util::siphash13(key, b, n));
  }
};

}  // namespace net::tcp
