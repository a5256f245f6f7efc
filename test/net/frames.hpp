// Builders for frames a peer would send, for the stack's unit tests.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <net/ethernet_addr.hpp>
#include <net/ip4_addr.hpp>
#include <vector>

#include "net/wire/arp.hpp"
#include "net/wire/checksum.hpp"
#include "net/wire/ethernet.hpp"
#include "net/wire/icmp4.hpp"
#include "net/wire/ip4.hpp"
#include "net/wire/udp.hpp"
#include "printers.hpp"

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
  ::net::wire::store16(f.data() + 12, type);
  f.insert(f.end(), payload.begin(), payload.end());
  return f;
}

inline Bytes arp(uint16_t op, Mac sha, Ip spa, Mac tha, Ip tpa) {
  Bytes p(28);
  ::net::wire::store16(&p[0], 1);
  ::net::wire::store16(&p[2], 0x0800);
  p[4] = 6;
  p[5] = 4;
  ::net::wire::store16(&p[6], op);
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
  ::net::wire::store16(&p[2], uint16_t(20 + payload.size()));
  ::net::wire::store16(&p[4], o.id);
  ::net::wire::store16(&p[6], o.fragment);
  p[8] = o.ttl;
  p[9] = proto;
  src.write(&p[12]);
  dst.write(&p[16]);
  ::net::wire::store16(&p[10], ::net::wire::checksum(p.data(), 20));
  p.insert(p.end(), payload.begin(), payload.end());
  return p;
}

inline Bytes udp(Ip src, Ip dst, uint16_t sport, uint16_t dport, const Bytes& data) {
  Bytes u(8);
  ::net::wire::store16(&u[0], sport);
  ::net::wire::store16(&u[2], dport);
  ::net::wire::store16(&u[4], uint16_t(8 + data.size()));
  u.insert(u.end(), data.begin(), data.end());
  uint32_t pseudo = ::net::wire::pseudo_header_sum(src, dst, 17, uint16_t(u.size()));
  uint16_t sum =
      uint16_t(~::net::wire::checksum_fold(::net::wire::checksum_add(pseudo, u.data(), u.size())));
  ::net::wire::store16(&u[6], sum ? sum : 0xffff);
  return u;
}

inline Bytes icmp_echo(uint16_t id, uint16_t seq, const Bytes& data, uint8_t type = 8) {
  Bytes m(8);
  m[0] = type;
  ::net::wire::store16(&m[4], id);
  ::net::wire::store16(&m[6], seq);
  m.insert(m.end(), data.begin(), data.end());
  ::net::wire::store16(&m[2], ::net::wire::checksum(m.data(), m.size()));
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
  uint16_t id = ::net::wire::load16(&packet[4]);
  for (std::size_t off = 0; off < payload.size(); off += chunk) {
    std::size_t n = std::min(chunk, payload.size() - off);
    bool more = off + n < payload.size();
    Bytes part(payload.begin() + off, payload.begin() + off + n);
    out.push_back(ip4(Ip::from_bytes(&packet[12]), Ip::from_bytes(&packet[16]), packet[9], part,
                      {.id = id, .fragment = uint16_t((more ? 0x2000 : 0) | off / 8)}));
  }
  return out;
}

// Parsed headers of what the stack sent, for whole-header assertions:
// EXPECT_EQ(sent_ip(frame), (Ip4Repr{...})).
inline ::net::wire::EthernetRepr sent_ethernet(const Bytes& frame) {
  auto e = ::net::wire::EthernetRepr::parse(frame);
  EXPECT_TRUE(e.has_value());
  return e.value_or(::net::wire::EthernetRepr{});
}
inline ::net::wire::Ip4Repr sent_ip(const Bytes& frame) {
  ::net::wire::Ip4View<const uint8_t> v(frame.data() + 14, frame.size() - 14);
  EXPECT_EQ(v.check(), ::net::wire::Ip4Error::none);
  return ::net::wire::Ip4Repr::parse(v);
}
// The transport bytes of a sent IPv4 frame (after the IP header).
inline Bytes sent_payload(const Bytes& frame) {
  ::net::wire::Ip4View<const uint8_t> v(frame.data() + 14, frame.size() - 14);
  return Bytes(v.payload(), v.payload() + v.payload_len());
}
inline ::net::wire::UdpRepr sent_udp(const Bytes& frame) {
  Bytes p = sent_payload(frame);
  ::net::wire::UdpView<const uint8_t> v(p.data(), p.size());
  ::net::wire::Ip4Repr ip = sent_ip(frame);
  EXPECT_EQ(v.check(ip.src, ip.dst), ::net::wire::UdpError::none);
  return ::net::wire::UdpRepr::parse(v);
}
inline ::net::wire::Icmp4Repr sent_icmp(const Bytes& frame) {
  Bytes p = sent_payload(frame);
  ::net::wire::Icmp4View<const uint8_t> v(p.data(), p.size());
  EXPECT_EQ(v.check(), ::net::wire::Icmp4Error::none);
  return ::net::wire::Icmp4Repr::parse(v);
}

inline ::net::wire::ArpRepr sent_arp(const Bytes& frame) {
  ::net::wire::ArpRepr a;
  EXPECT_EQ(::net::wire::ArpRepr::parse({frame.data() + 14, frame.size() - 14}, a),
            ::net::wire::ArpError::none);
  return a;
}
// The IPv4 header's length (with options) of a sent frame.
inline std::size_t sent_header_len(const Bytes& frame) {
  return ::net::wire::Ip4View<const uint8_t>(frame.data() + 14, frame.size() - 14).header_len();
}
// The options of a sent frame's IPv4 header.
inline Bytes sent_options(const Bytes& frame) {
  return Bytes(frame.begin() + 14 + 20,
               frame.begin() + 14 + std::ptrdiff_t(sent_header_len(frame)));
}

// `packet` (a 20-byte header) with `options` (a multiple of 4 bytes) added
// to its header: IHL, total length and checksum made right.
inline Bytes with_options(const Bytes& packet, const Bytes& options) {
  Bytes p(packet.begin(), packet.begin() + 20);
  p.insert(p.end(), options.begin(), options.end());
  p.insert(p.end(), packet.begin() + 20, packet.end());
  std::size_t header_len = 20 + options.size();
  p[0] = uint8_t(0x40 | header_len / 4);
  ::net::wire::store16(&p[2], uint16_t(p.size()));
  ::net::wire::store16(&p[10], 0);
  ::net::wire::store16(&p[10], ::net::wire::checksum(p.data(), header_len));
  return p;
}

// The frame as IPv4 over Ethernet from the peer to the stack.
inline Bytes ip_frame(const Bytes& ip_packet, Mac dst = stack_mac, Mac src = peer_mac) {
  return ethernet(dst, src, 0x0800, ip_packet);
}

}  // namespace keel::test
