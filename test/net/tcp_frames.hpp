// Builders and readers of TCP segments for the stack's unit tests: a peer's
// segment as an IPv4 packet, and what the stack sent as a whole TcpRepr.
#pragma once
#include <gtest/gtest.h>

#include <ostream>

#include "frames.hpp"
#include "frames6.hpp"
#include "net/wire/tcp.hpp"

namespace net::wire {
inline void PrintTo(TcpError e, std::ostream* os) { *os << "TcpError " << int(e); }
inline void PrintTo(TcpOptionError e, std::ostream* os) { *os << "TcpOptionError " << int(e); }
inline void PrintTo(const TcpRepr& t, std::ostream* os) {
  static constexpr const char* names[] = {"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR"};
  *os << "{" << t.src_port << " > " << t.dst_port << ",";
  for (int i = 0; i < 8; ++i)
    if (t.flags & (1 << i)) *os << " " << names[i];
  *os << ", seq " << t.seq << ", ack " << t.ack << ", win " << t.window;
  if (t.urgent) *os << ", urg " << t.urgent;
  const TcpOptions& o = t.options;
  if (o.mss) *os << ", mss " << *o.mss;
  if (o.window_scale) *os << ", wscale " << int(*o.window_scale);
  if (o.sack_permitted) *os << ", sackOK";
  if (o.timestamps) *os << ", TS " << o.timestamps->value << " ecr " << o.timestamps->echo;
  for (uint32_t i = 0; i < o.sack_count; ++i)
    *os << ", sack " << o.sack[i].left << "-" << o.sack[i].right;
  *os << ", len " << t.payload_len << "}";
}
}  // namespace net::wire

namespace keel::test {

// The TCP segment `header` + `payload` as bytes, checksummed for src > dst over either family's
// pseudo-header (RFC 8200 §8.1 for IPv6); header.payload_len is set from the payload.
template <class Address>
inline Bytes tcp(const Address& src, const Address& dst, ::net::wire::TcpRepr header,
                 const Bytes& payload = {}) {
  header.payload_len = uint32_t(payload.size());
  Bytes s(header.header_len());
  s.insert(s.end(), payload.begin(), payload.end());
  header.emit(s.data(), src, dst);
  return s;
}

// A whole IPv4 packet from the peer to the stack carrying it.
inline Bytes tcp_packet(const ::net::wire::TcpRepr& header, const Bytes& payload = {},
                        Ip src = peer_ip, Ip dst = stack_ip) {
  return ip4(src, dst, 6, tcp(src, dst, header, payload));
}

// An ICMP error (RFC 792) quoting `quoted` (an IPv4 header and what follows).
inline Bytes icmp_error(uint8_t type, uint8_t code, uint32_t rest, const Bytes& quoted) {
  Bytes m(8);
  m[0] = type;
  m[1] = code;
  ::net::wire::store32(&m[4], rest);
  m.insert(m.end(), quoted.begin(), quoted.end());
  ::net::wire::store16(&m[2], ::net::wire::checksum(m.data(), m.size()));
  return m;
}

// The same over IPv6 (RFC 8200 §8.1 pseudo-header), and a whole packet.
inline Bytes tcp6(const Ip6& src, const Ip6& dst, const ::net::wire::TcpRepr& header,
                  const Bytes& payload = {}) {
  return tcp(src, dst, header, payload);
}
inline Bytes tcp6_packet(const ::net::wire::TcpRepr& header, const Bytes& payload = {},
                         const Ip6& src = peer_ip6, const Ip6& dst = stack_ip6) {
  return ip6(src, dst, 6, tcp6(src, dst, header, payload));
}

// A sent frame's TCP header (checked, checksum verified) and payload.
struct SentSegment {
  ::net::wire::TcpRepr header;
  Bytes payload;
};
inline SentSegment sent_segment(const Bytes& frame) {
  Bytes p = sent_payload(frame);
  ::net::wire::Ip4Repr ip = sent_ip(frame);
  EXPECT_EQ(ip.protocol, 6);
  ::net::wire::TcpView<const uint8_t> v(p.data(), p.size());
  EXPECT_EQ(v.check(ip.src, ip.dst), ::net::wire::TcpError::none);
  if (v.check(ip.src, ip.dst, false) != ::net::wire::TcpError::none) return {};
  ::net::wire::TcpOptionError e;
  auto header = ::net::wire::TcpRepr::parse(v, &e);
  EXPECT_EQ(e, ::net::wire::TcpOptionError::none);
  return {header, Bytes(v.payload(), v.payload() + v.payload_len())};
}
inline ::net::wire::TcpRepr sent_tcp(const Bytes& frame) { return sent_segment(frame).header; }
// The same of an IPv6 frame (no extension headers: the stack sends none).
inline SentSegment sent_segment6(const Bytes& frame) {
  ::net::wire::Ip6Repr ip = sent_ip6(frame);
  EXPECT_EQ(ip.next_header, 6);
  Bytes p = sent_payload6(frame);
  ::net::wire::TcpView<const uint8_t> v(p.data(), p.size());
  EXPECT_EQ(v.check(ip.src, ip.dst), ::net::wire::TcpError::none);
  if (v.check(ip.src, ip.dst, false) != ::net::wire::TcpError::none) return {};
  ::net::wire::TcpOptionError e;
  auto header = ::net::wire::TcpRepr::parse(v, &e);
  EXPECT_EQ(e, ::net::wire::TcpOptionError::none);
  return {header, Bytes(v.payload(), v.payload() + v.payload_len())};
}

}  // namespace keel::test
