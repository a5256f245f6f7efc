// Router advertisements a router (or an attacker) would send, for the
// router discovery and SLAAC unit tests (RFC 4861 §4.2, §4.6).
#pragma once
#include "frames6.hpp"

namespace keel::test {

inline const Ip6 router_ll = ip6_of("fe80::1");
inline const Mac router_mac{{0x02, 0, 0, 0, 0, 0x99}};
inline const Mac all_nodes_mac = ::net::ip6addr::multicast_mac(::net::ip6addr::all_nodes());

inline Bytes prefix_option(const Ip6& prefix, uint8_t len, uint8_t flags, uint32_t valid,
                           uint32_t preferred) {
  Bytes o(32);
  o[0] = 3;
  o[1] = 4;
  o[2] = len;
  o[3] = flags;
  ::net::wire::store32(&o[4], valid);
  ::net::wire::store32(&o[8], preferred);
  std::copy(prefix.bytes.begin(), prefix.bytes.end(), o.begin() + 16);
  return o;
}
inline Bytes mtu_option(uint32_t mtu) {
  Bytes o(8);
  o[0] = 5;
  o[1] = 1;
  ::net::wire::store32(&o[4], mtu);
  return o;
}
inline Bytes mac_option(Mac mac) {
  Bytes o{1, 1};
  o.insert(o.end(), mac.bytes.begin(), mac.bytes.end());
  return o;
}
inline Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes all;
  for (const Bytes& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}
// An advertisement to all nodes: cur hop limit 64, `lifetime` s as a
// default router, reachable and retrans 0, then `options`.
inline Bytes ra(const Ip6& src, uint16_t lifetime, const Bytes& options, uint8_t hop_limit = 255,
                uint8_t code = 0) {
  Bytes body(8, 0);
  body.insert(body.end(), options.begin(), options.end());
  Ip6 dst = ::net::ip6addr::all_nodes();
  return ip6(src, dst, 58, icmp6(src, dst, 134, code, uint32_t(64) << 24 | lifetime, body),
             hop_limit);
}

constexpr uint8_t on_link_autonomous = 0xc0;

}  // namespace keel::test
