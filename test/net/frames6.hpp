// Builders for IPv6 frames a peer would send, and parsers for what the
// stack sent, for the IPv6 unit tests (the IPv4 ones are in frames.hpp).
#pragma once
#include <algorithm>
#include <net/address.hpp>

#include "frames.hpp"
#include "net/ip6/addr.hpp"
#include "net/wire/icmp6.hpp"
#include "net/wire/ip6.hpp"

namespace net::ip6 {
inline void PrintTo(const Addr& a, std::ostream* os) { *os << ::net::Address(a).to_string(); }
}  // namespace net::ip6

namespace net::wire {
inline void PrintTo(Ip6Error e, std::ostream* os) { *os << "Ip6Error " << int(e); }
inline void PrintTo(Icmp6Error e, std::ostream* os) { *os << "Icmp6Error " << int(e); }
inline void PrintTo(const Ip6Repr& h, std::ostream* os) {
  *os << "{" << ::net::Address(h.src).to_string() << " > " << ::net::Address(h.dst).to_string()
      << ", next " << int(h.next_header) << ", hop limit " << int(h.hop_limit) << ", payload "
      << h.payload_len << "}";
}
}  // namespace net::wire

namespace keel::test {

using Ip6 = ::net::ip6::Addr;

inline Ip6 ip6_of(const char* text) { return ::net::Address::parse(text)->ip6(); }

inline const Ip6 stack_ip6 = ip6_of("fd00::2");
inline const Ip6 peer_ip6 = ip6_of("fd00::1");
inline const Ip6 peer_link_local = ip6_of("fe80::2");
// fe80:: + the modified EUI-64 of 02:00:00:00:00:01 (RFC 4291 appendix A).
inline const Ip6 stack_link_local = ip6_of("fe80::ff:fe00:1");

inline Bytes ip6(const Ip6& src, const Ip6& dst, uint8_t next, const Bytes& payload,
                 uint8_t hop_limit = 64) {
  Bytes p(40);
  ::net::wire::Ip6Repr{src, dst, next, hop_limit, uint16_t(payload.size())}.emit(p.data());
  p.insert(p.end(), payload.begin(), payload.end());
  return p;
}

inline Bytes ip6_frame(const Bytes& packet, Mac dst = stack_mac) {
  return ethernet(dst, peer_mac, ::net::wire::ethertype_ip6, packet);
}

// An ICMPv6 message with its checksum for src -> dst.
inline Bytes icmp6(const Ip6& src, const Ip6& dst, uint8_t type, uint8_t code, uint32_t rest,
                   const Bytes& body) {
  Bytes m(8);
  m[0] = type;
  m[1] = code;
  ::net::wire::store32(&m[4], rest);
  m.insert(m.end(), body.begin(), body.end());
  ::net::wire::icmp6_fill_checksum(m.data(), m.size(), src, dst);
  return m;
}

inline Bytes udp6(const Ip6& src, const Ip6& dst, uint16_t sport, uint16_t dport,
                  const Bytes& data) {
  Bytes u(8 + data.size());
  std::copy(data.begin(), data.end(), u.begin() + 8);
  ::net::wire::UdpRepr{sport, dport, uint16_t(data.size())}.emit(u.data(), src, dst);
  return u;
}

// Neighbour solicitation / advertisement bodies (after the 4-byte rest).
inline Bytes nd_body(const Ip6& target, uint8_t option_type, const Mac* mac) {
  Bytes b(target.bytes.begin(), target.bytes.end());
  if (mac) {
    b.push_back(option_type);
    b.push_back(1);
    b.insert(b.end(), mac->bytes.begin(), mac->bytes.end());
  }
  return b;
}
inline Bytes ns(const Ip6& src, const Ip6& dst, const Ip6& target, const Mac* mac) {
  return ip6(src, dst, 58, icmp6(src, dst, 135, 0, 0, nd_body(target, 1, mac)), 255);
}
inline Bytes na(const Ip6& src, const Ip6& dst, const Ip6& target, uint8_t flags, const Mac* mac) {
  return ip6(src, dst, 58, icmp6(src, dst, 136, 0, uint32_t(flags) << 24, nd_body(target, 2, mac)),
             255);
}

// Whether a sent frame is an MLD report: IPv6 with a hop-by-hop header to
// ff02::16 (RFC 3810 §5.2.14).
inline bool is_mld_report(const Bytes& f) {
  return f.size() >= 14 + 40 && ::net::wire::load16(&f[12]) == ::net::wire::ethertype_ip6 &&
         f[14 + 6] == 0 && f[14 + 24] == 0xff && f[14 + 39] == 0x16;
}
// Takes MLD reports out of what the stack sent, for tests that count the rest.
template <class Frames>
void drop_mld(Frames& frames) {
  auto mld = [](const auto& f) { return is_mld_report(Bytes(f.begin(), f.end())); };
  frames.erase(std::remove_if(frames.begin(), frames.end(), mld), frames.end());
}

// Parsed headers of what the stack sent.
inline ::net::wire::Ip6Repr sent_ip6(const Bytes& frame) {
  ::net::wire::Ip6View<const uint8_t> v(frame.data() + 14, frame.size() - 14);
  EXPECT_EQ(v.check(), ::net::wire::Ip6Error::none);
  return ::net::wire::Ip6Repr::parse(v);
}
inline Bytes sent_payload6(const Bytes& frame) {
  return Bytes(frame.begin() + 14 + 40, frame.end());
}
// The ICMPv6 message of a sent frame, its checksum verified.
inline Bytes sent_icmp6(const Bytes& frame) {
  auto ip = sent_ip6(frame);
  Bytes m = sent_payload6(frame);
  ::net::wire::Icmp6View<const uint8_t> v(m.data(), m.size());
  EXPECT_EQ(v.check(ip.src, ip.dst), ::net::wire::Icmp6Error::none);
  return m;
}

}  // namespace keel::test
