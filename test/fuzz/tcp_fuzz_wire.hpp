// tcp_fuzz's side of the wire, for either family: the peer's packets as
// Ethernet frames (IPv4 10.0.0.1 > 10.0.0.2, or IPv6 fd00::1 > fd00::2),
// TCP checksums with the family's pseudo-header, and the check of every
// frame the stack sent (right lengths and checksum; ARP, ND and ICMP
// skipped).
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/ethernet_addr.hpp>
#include <vector>

#include "net/ip6/addr.hpp"
#include "net/wire/icmp6.hpp"
#include "net/wire/ip4.hpp"
#include "net/wire/ip6.hpp"
#include "net/wire/tcp.hpp"

namespace tcp_fuzz {

inline const net::ethernet::Addr our_mac{{0x02, 0, 0, 0, 0, 1}}, peer_mac{{0x02, 0, 0, 0, 0, 2}};
inline const net::ip4::Addr ours{10, 0, 0, 2}, peer{10, 0, 0, 1};
inline const net::ip6::Addr ours6 = net::Address::parse("fd00::2")->ip6();
inline const net::ip6::Addr peer6 = net::Address::parse("fd00::1")->ip6();
constexpr uint16_t ethertype_ip4 = 0x0800, ethertype_ip6 = 0x86dd;
constexpr std::size_t ethernet_header = 14;

inline void fix_checksum(bool v6, std::vector<uint8_t>& s) {
  net::wire::store16(s.data() + net::wire::tcp_checksum_offset, 0);
  uint32_t pseudo =
      v6 ? net::wire::pseudo_header_sum(peer6, ours6, net::wire::ip_protocol_tcp,
                                        uint32_t(s.size()))
         : net::wire::pseudo_header_sum(peer, ours, net::wire::ip_protocol_tcp, uint16_t(s.size()));
  uint16_t sum =
      uint16_t(~net::wire::checksum_fold(net::wire::checksum_add(pseudo, s.data(), s.size())));
  net::wire::store16(s.data() + net::wire::tcp_checksum_offset, sum);
}

// The peer's packet carrying `payload` (protocol / next header), in a frame.
inline std::vector<uint8_t> frame(bool v6, uint8_t protocol, const std::vector<uint8_t>& payload,
                                  const net::ip6::Addr& src6 = peer6) {
  std::size_t header = v6 ? net::wire::ip6_header_size : net::wire::ip4_header_min;
  std::vector<uint8_t> f(ethernet_header + header);
  our_mac.write(f.data());
  peer_mac.write(f.data() + 6);
  net::wire::store16(f.data() + 12, v6 ? ethertype_ip6 : ethertype_ip4);
  if (v6) {
    net::wire::Ip6Repr{src6, ours6, protocol, 64, uint16_t(payload.size())}.emit(f.data() +
                                                                                 ethernet_header);
  } else {
    net::wire::Ip4Repr ip;
    ip.src = peer;
    ip.dst = ours;
    ip.protocol = protocol;
    ip.payload_len = uint16_t(payload.size());
    ip.emit(f.data() + ethernet_header);
  }
  f.insert(f.end(), payload.begin(), payload.end());
  return f;
}

// The peer's neighbour solicitation for our address, with its MAC (from
// on the link: hop limit 255, to the solicited-node group).
inline std::vector<uint8_t> solicitation() {
  constexpr std::size_t body = 24, option = 8;
  net::ip6::Addr group = net::ip6addr::solicited_node(ours6);
  std::vector<uint8_t> ns(body + option, 0);
  ns[0] = net::wire::icmp6::neighbor_solicitation;
  std::copy(ours6.bytes.begin(), ours6.bytes.end(), ns.begin() + 8);
  ns[body] = 1;  // source link-layer address, 8 bytes
  ns[body + 1] = 1;
  peer_mac.write(ns.data() + body + 2);
  net::wire::icmp6_fill_checksum(ns.data(), ns.size(), peer6, group);
  std::vector<uint8_t> f = frame(true, net::wire::ip6_next_icmp6, ns);
  net::wire::Ip6Repr{peer6, group, net::wire::ip6_next_icmp6, net::wire::nd::hop_limit,
                     uint16_t(ns.size())}
      .emit(f.data() + ethernet_header);
  net::ip6addr::multicast_mac(group).write(f.data());
  return f;
}

// RFC 4443 from a router: Packet Too Big with MTU `mtu` (c even; 1280 or
// less is taken as 1280) or Destination Unreachable (code c/2 % 7), quoting
// the IPv6 and TCP headers of `sent` (an IPv6 packet we sent).
inline std::vector<uint8_t> icmp6_error(uint8_t c, uint16_t mtu, const std::vector<uint8_t>& sent) {
  constexpr std::size_t quoted = net::wire::ip6_header_size + net::wire::tcp_header_min;
  constexpr uint8_t unreachable_codes = 7;
  std::vector<uint8_t> m(net::wire::icmp6_header_size, 0);
  bool too_big = (c & 1) == 0;
  m[0] = too_big ? net::wire::icmp6::packet_too_big : net::wire::icmp6::destination_unreachable;
  m[1] = too_big ? 0 : uint8_t((c >> 1) % unreachable_codes);
  net::wire::store32(m.data() + 4, too_big ? mtu : 0);
  m.insert(m.end(), sent.begin(), sent.begin() + quoted);
  net::ip6::Addr router = net::Address::parse("fd00::fe")->ip6();
  net::wire::icmp6_fill_checksum(m.data(), m.size(), router, ours6);
  return frame(true, net::wire::ip6_next_icmp6, m, router);
}

// What a sent frame is: not ours to check (ARP, ND, ICMP), a TCP segment
// (checked: header, lengths, checksum unless offloaded), or broken.
enum class Sent { other, tcp, broken };
inline Sent check_sent(const std::vector<uint8_t>& f, bool offload, net::wire::TcpRepr& h) {
  if (f.size() < ethernet_header) return Sent::broken;
  uint16_t type = net::wire::load16(f.data() + 12);
  const uint8_t* ip = f.data() + ethernet_header;
  std::size_t len = f.size() - ethernet_header;
  const uint8_t* tcp = nullptr;
  std::size_t tcp_len = 0;
  uint32_t pseudo = 0;
  if (type == ethertype_ip4) {
    net::wire::Ip4View<const uint8_t> v(ip, len);
    if (len < net::wire::ip4_header_min || v.check() != net::wire::Ip4Error::none ||
        v.total_length() != len)
      return Sent::broken;
    if (v.protocol() != net::wire::ip_protocol_tcp) return Sent::other;  // ICMP about our ports
    tcp = v.payload();
    tcp_len = v.payload_len();
    pseudo = net::wire::pseudo_header_sum(v.src(), v.dst(), net::wire::ip_protocol_tcp,
                                          uint16_t(tcp_len));
  } else if (type == ethertype_ip6) {
    net::wire::Ip6View<const uint8_t> v(ip, len);
    if (len < net::wire::ip6_header_size || v.check() != net::wire::Ip6Error::none ||
        v.payload_length() + net::wire::ip6_header_size != len)
      return Sent::broken;
    if (v.next_header() != net::wire::ip_protocol_tcp) return Sent::other;  // ND, ICMPv6
    tcp = ip + net::wire::ip6_header_size;
    tcp_len = len - net::wire::ip6_header_size;
    pseudo = net::wire::pseudo_header_sum(v.src(), v.dst(), net::wire::ip_protocol_tcp,
                                          uint32_t(tcp_len));
  } else {
    return type == 0x0806 ? Sent::other : Sent::broken;  // ARP
  }
  net::wire::TcpView<const uint8_t> t(tcp, tcp_len);
  if (t.check_with(pseudo, !offload) != net::wire::TcpError::none) return Sent::broken;
  net::wire::TcpOptionError e;
  h = net::wire::TcpRepr::parse(t, &e);
  return e == net::wire::TcpOptionError::none ? Sent::tcp : Sent::broken;
}

}  // namespace tcp_fuzz
