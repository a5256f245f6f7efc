// IPv6 address classes and the addresses derived from others (RFC 4291):
// link-local from the MAC (modified EUI-64, decision 0130), solicited-node
// groups, and the Ethernet group of a multicast address (RFC 2464 §7).
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/ethernet_addr.hpp>

namespace net::ip6addr {

inline bool is_multicast(const ip6::Addr& a) { return a.bytes[0] == 0xff; }
// fe80::/10 (RFC 4291 §2.5.6).
inline bool is_link_local(const ip6::Addr& a) {
  return a.bytes[0] == 0xfe && (a.bytes[1] & 0xc0) == 0x80;
}
inline bool is_loopback(const ip6::Addr& a) {
  ip6::Addr one;
  one.bytes[15] = 1;
  return a == one;
}
// ::ffff:0:0/96 (RFC 4291 §2.5.5.2): IPv4 on an IPv6 socket, never on a wire.
inline bool is_ip4_mapped(const ip6::Addr& a) {
  for (int i = 0; i < 10; ++i)
    if (a.bytes[i]) return false;
  return a.bytes[10] == 0xff && a.bytes[11] == 0xff;
}
// A multicast address's scope (RFC 4291 §2.7): 1 interface, 2 link.
inline uint8_t multicast_scope(const ip6::Addr& a) { return a.bytes[1] & 0x0f; }

// ff02::1, every node on the link (RFC 4291 §2.7.1).
inline ip6::Addr all_nodes() {
  ip6::Addr a;
  a.bytes[0] = 0xff;
  a.bytes[1] = 0x02;
  a.bytes[15] = 1;
  return a;
}

// ff02::1:ffXX:XXXX with the low 24 bits of `a` (RFC 4291 §2.7.1).
inline ip6::Addr solicited_node(const ip6::Addr& a) {
  ip6::Addr s;
  s.bytes[0] = 0xff;
  s.bytes[1] = 0x02;
  s.bytes[11] = 0x01;
  s.bytes[12] = 0xff;
  s.bytes[13] = a.bytes[13];
  s.bytes[14] = a.bytes[14];
  s.bytes[15] = a.bytes[15];
  return s;
}

// RFC 2464 §7: 33:33 and the last four bytes of the group.
inline ethernet::Addr multicast_mac(const ip6::Addr& group) {
  return {{0x33, 0x33, group.bytes[12], group.bytes[13], group.bytes[14], group.bytes[15]}};
}

// fe80::/64 with the modified EUI-64 interface identifier of `mac` (RFC 4291
// appendix A, RFC 2464 §4): ff:fe in the middle, the universal/local bit flipped.
inline ip6::Addr link_local_from_mac(const ethernet::Addr& mac) {
  constexpr uint8_t universal_local_bit = 0x02;
  ip6::Addr a;
  a.bytes[0] = 0xfe;
  a.bytes[1] = 0x80;
  a.bytes[8] = mac.bytes[0] ^ universal_local_bit;
  a.bytes[9] = mac.bytes[1];
  a.bytes[10] = mac.bytes[2];
  a.bytes[11] = 0xff;
  a.bytes[12] = 0xfe;
  a.bytes[13] = mac.bytes[3];
  a.bytes[14] = mac.bytes[4];
  a.bytes[15] = mac.bytes[5];
  return a;
}

// Whether `a` lies in prefix/len.
inline bool in_prefix(const ip6::Addr& a, const ip6::Addr& prefix, uint8_t len) {
  for (int i = 0; i < 16 && len > 0; ++i, len = len >= 8 ? uint8_t(len - 8) : 0) {
    uint8_t mask = len >= 8 ? 0xff : uint8_t(0xff00 >> len);
    if ((a.bytes[i] ^ prefix.bytes[i]) & mask) return false;
  }
  return true;
}

}  // namespace net::ip6addr
