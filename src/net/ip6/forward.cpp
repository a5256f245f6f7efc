// IPv6 forwarding between interfaces (RFC 8200 §3 and §5, RFC 4443 §3,
// RFC 4291 §2.5.6), in the order IPv4's takes (src/net/ip4/forward.cpp):
// scope, hop limit, route, MTU (Packet Too Big: a router never fragments),
// hop limit decrement, forward hook, postrouting. Hop-by-hop options are
// not examined on the way through (RFC 8200 §4.3 leaves that to routers
// configured for it); a routing header is the destination's business.
#include "ip6.hpp"
#include "net/ip6/addr.hpp"
#include "net/link/tcp_segmentation.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp6.hpp"

namespace net {

// What a router may not pass on at all, counted (and answered where RFC 4443 says).
bool Ip6::forwardable(InterfaceId in, Packet& packet, LinkCast cast) {
  Ip6Counters& c = parts_.counters.ip6;
  wire::Ip6View<uint8_t> v(packet.data(), packet.size());
  ip6::Addr src = v.src(), dst = v.dst();
  // Only unicast to our MAC is routed, only when forwarding is on; groups
  // are not routed here (no multicast routing: a link-scope group never
  // leaves its link anyway, RFC 4291 §2.7).
  if (!forwarding_ || cast != LinkCast::unicast || ip6addr::is_multicast(dst)) {
    ++c.drop_not_for_us;
    return false;
  }
  // RFC 4291 §2.5.2: the unspecified address is never forwarded, as source or destination.
  if (src.is_any() || dst.is_any()) {
    ++c.drop_bad_address;
    return false;
  }
  // RFC 4291 §2.5.6, RFC 4007 §9: a link-local destination never leaves its link.
  if (ip6addr::is_link_local(dst)) {
    ++c.drop_beyond_scope;
    return false;
  }
  // RFC 8200 §3, RFC 4443 §3.3: the hop limit would reach 0 here.
  if (v.hop_limit() <= 1) {
    ++c.drop_hop_limit;
    parts_.icmp6.send_error(wire::icmp6::time_exceeded, wire::icmp6::hop_limit_exceeded, 0,
                            packet.data(), packet.size(), in);
    return false;
  }
  return true;
}

void Ip6::forward(InterfaceId in, PacketPtr packet, LinkCast cast) {
  Ip6Counters& c = parts_.counters.ip6;
  if (!forwardable(in, *packet, cast)) return;
  wire::Ip6View<uint8_t> v(packet->data(), packet->size());
  Ip6Path path;
  if (!lookup(v.dst(), path) || !parts_.link(path.interface).ip6_on()) {
    ++c.drop_no_route;
    parts_.icmp6.send_error(wire::icmp6::destination_unreachable, wire::icmp6::no_route, 0,
                            packet->data(), packet->size(), in);
    return;
  }
  // RFC 4007 §9, RFC 4443 §3.1 code 2: a link-local source stays on its link.
  if (ip6addr::is_link_local(v.src()) && path.interface != in) {
    ++c.drop_beyond_scope;
    parts_.icmp6.send_error(wire::icmp6::destination_unreachable, wire::icmp6::beyond_scope, 0,
                            packet->data(), packet->size(), in);
    return;
  }
  // RFC 8200 §5, RFC 4443 §3.2: too big for the next link is answered with
  // that link's MTU, never fragmented (only a source fragments). A TCP segment
  // the host coalesced (decision 0093) leaves as segments: their size counts.
  Link& out = parts_.link(path.interface);
  const bool coalesced = packet->flags & Packet::segmentation_offload;
  if ((coalesced ? tcp_segment_size(*packet) : packet->size()) > out.mtu6()) {
    ++c.drop_packet_too_big;
    parts_.icmp6.send_error(wire::icmp6::packet_too_big, 0, out.mtu6(), packet->data(),
                            packet->size(), in);
    return;
  }
  v.decrement_hop_limit();
  if (!passes(Hook::forward, *packet, in, path.interface)) return;
  ++c.forwarded;
  post_route(in, path.interface, path.next_hop, std::move(packet));
}

// RFC 4861 §7.2.2: each packet queued for a neighbour that never answered
// is answered with address unreachable. Only forwarded ones: this host's
// own were sent by a protocol with timers of its own.
void Ip6::neighbour_unreachable(const Packet& packet) {
  if (packet.size() < wire::ip6_header_size) return;
  wire::Ip6View<const uint8_t> v(packet.data(), packet.size());
  if (is_local_address(v.src())) return;
  ++parts_.counters.ip6.drop_address_unreachable;
  parts_.icmp6.send_error(wire::icmp6::destination_unreachable, wire::icmp6::address_unreachable, 0,
                          packet.data(), packet.size(), no_interface);
}

}  // namespace net
