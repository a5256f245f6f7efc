// Builders for frames a peer would send, for the stack's unit tests.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <net/ethernet_addr.hpp>
#include <net/ip4_addr.hpp>

#include "net/bytes.hpp"

namespace keel::test {

using Bytes = std::vector<uint8_t>;
using Mac = ::net::ethernet::Addr;
using Ip = ::net::ip4::Addr;

inline const Mac stack_mac{{0x02, 0, 0, 0, 0, 1}};
inline const Mac peer_mac{{0x02, 0, 0, 0, 0, 2}};
inline const Ip stack_ip{10, 0, 0, 2};
inline const Ip peer_ip{10, 0, 0, 1};

inline Bytes ethernet(Mac dst, Mac src, uint16_t type, const Bytes& payload) {
  Bytes f(14);
  dst.write(f.data());
  src.write(f.data() + 6);
  keel::net::store16(f.data() + 12, type);
  f.insert(f.end(), payload.begin(), payload.end());
  return f;
}

inline Bytes arp(uint16_t op, Mac sha, Ip spa, Mac tha, Ip tpa) {
  Bytes p(28);
  keel::net::store16(&p[0], 1);
  keel::net::store16(&p[2], 0x0800);
  p[4] = 6;
  p[5] = 4;
  keel::net::store16(&p[6], op);
  sha.write(&p[8]);
  spa.write(&p[14]);
  tha.write(&p[18]);
  tpa.write(&p[24]);
  return p;
}

struct IpOptions {
  uint16_t id = 1;
  uint16_t fragment = 0;  // flags + offset field as sent
  uint8_t ttl = 64;
};

inline Bytes ip4(Ip src, Ip dst, uint8_t proto, const Bytes& payload, IpOptions o = {}) {
  Bytes p(20);
  p[0] = 0x45;
  keel::net::store16(&p[2], uint16_t(20 + payload.size()));
  keel::net::store16(&p[4], o.id);
  keel::net::store16(&p[6], o.fragment);
  p[8] = o.ttl;
  p[9] = proto;
  src.write(&p[12]);
  dst.write(&p[16]);
  keel::net::store16(&p[10], keel::net::checksum(p.data(), 20));
  p.insert(p.end(), payload.begin(), payload.end());
  return p;
}

inline Bytes udp(Ip src, Ip dst, uint16_t sport, uint16_t dport, const Bytes& data) {
  Bytes u(8);
  keel::net::store16(&u[0], sport);
  keel::net::store16(&u[2], dport);
  keel::net::store16(&u[4], uint16_t(8 + data.size()));
  u.insert(u.end(), data.begin(), data.end());
  uint32_t pseudo = keel::net::pseudo_header_sum(src, dst, 17, uint16_t(u.size()));
  uint16_t sum = uint16_t(~keel::net::checksum_fold(keel::net::checksum_add(pseudo, u.data(), u.size())));
  keel::net::store16(&u[6], sum ? sum : 0xffff);
  return u;
}

inline Bytes icmp_echo(uint16_t id, uint16_t seq, const Bytes& data, uint8_t type = 8) {
  Bytes m(8);
  m[0] = type;
  keel::net::store16(&m[4], id);
  keel::net::store16(&m[6], seq);
  m.insert(m.end(), data.begin(), data.end());
  keel::net::store16(&m[2], keel::net::checksum(m.data(), m.size()));
  return m;
}

inline Bytes pattern(std::size_t n, uint8_t seed = 0) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = uint8_t(i * 7 + seed);
  return b;
}

// Splits `packet` (an IPv4 packet with a 20-byte header) into fragments
// carrying `chunk` payload bytes each.
inline std::vector<Bytes> fragments(const Bytes& packet, std::size_t chunk) {
  std::vector<Bytes> out;
  Bytes payload(packet.begin() + 20, packet.end());
  uint16_t id = keel::net::load16(&packet[4]);
  for (std::size_t off = 0; off < payload.size(); off += chunk) {
    std::size_t n = std::min(chunk, payload.size() - off);
    bool more = off + n < payload.size();
    Bytes part(payload.begin() + off, payload.begin() + off + n);
    out.push_back(ip4(Ip::from_bytes(&packet[12]), Ip::from_bytes(&packet[16]), packet[9], part,
                      {.id = id, .fragment = uint16_t((more ? 0x2000 : 0) | off / 8)}));
  }
  return out;
}

// The frame as IPv4 over Ethernet from the peer to the stack.
inline Bytes ip_frame(const Bytes& ip_packet, Mac dst = stack_mac) {
  return ethernet(dst, peer_mac, 0x0800, ip_packet);
}

}  // namespace keel::test
