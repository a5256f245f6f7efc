// TCP over IPv6: segments checked with the IPv6 pseudo-header (RFC 8200
// §8.1) and handed to the demultiplexing IPv4 uses (tcp_receive.cpp); and
// ICMPv6 errors about our segments (RFC 4443 §3): Packet Too Big lowers
// the path MTU (RFC 8201, never below 1280) of the connection and of the
// destination cache, Destination Unreachable ends
// a connection attempt as ICMP's does (RFC 5461), others are soft.
#include <algorithm>

#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp6.hpp"
#include "tcp_layer.hpp"

namespace net {

void TcpLayer::receive(const Ip6Received& info, PacketPtr packet) {
  Work work(*this);
  ++counters_.rx;
  const wire::Ip6Repr& ip = info.header;
  // RFC 9293 §3.9.1 / RFC 1122 §4.2.3.10: nothing to or from a group (IPv6
  // input already refuses group sources).
  if (info.to_multicast) {
    ++counters_.drop_to_broadcast;
    return;
  }
  wire::TcpView<uint8_t> v(packet->data(), packet->size());
  bool verified = packet->flags & Packet::checksum_verified;
  if (!counted_ok(v.check(ip.src, ip.dst, !verified))) return;
  demultiplex(tcp::ConnectionKey{ip.dst, ip.src, v.dst_port(), v.src_port()}, v);
}

void TcpLayer::icmp_error(const Icmp6ErrorReport& report) {
  Work work(*this);
  wire::Ip6View<const uint8_t> ip(report.quoted, report.quoted_len);
  const uint8_t* t = report.quoted + report.upper;  // Icmp6 checked: 8 bytes are there
  tcp::ConnectionKey key{ip.src(), ip.dst(), wire::load16(t), wire::load16(t + 2)};
  tcp::Connection* c = icmp_target(key, wire::load32(t + 4));
  if (!c) return;
  if (report.type == wire::icmp6::packet_too_big) {
    // RFC 8201 §4: a report below the IPv6 minimum MTU lowers it to 1280
    // only (and RFC 8021 retired the atomic fragments it once asked for).
    uint32_t mtu = std::max<uint32_t>(report.rest, wire::ip6_min_mtu);
    c->path_mtu(mtu, now());
    // The destination cache keeps it (the quote was proven ours above), so
    // the next connection there starts from it (decision 0147).
    if (auto path = route(c->key); path && mtu < parts_.ip6.path_mtu(path->interface, ip.dst()))
      parts_.ip6.destinations().lower_path_mtu(ip.dst(), mtu, now());
    return;
  }
  // RFC 5461: while connecting, unreachable ends the attempt (as Linux
  // does, and as for ICMP here); on an established connection errors are
  // soft (routes change), and time exceeded and parameter problem always are.
  if (c->state == TcpState::syn_sent && report.type == wire::icmp6::destination_unreachable) {
    bool refused = report.code == wire::icmp6::port_unreachable;
    c->unreachable(refused ? TcpCloseReason::refused : TcpCloseReason::unreachable);
  }
}

}  // namespace net
