// IPv4 forwarding between interfaces (RFC 1812 §5.2–5.3, in Linux's order:
// TTL, route, MTU with DF, TTL decrement, forward hook, postrouting).
#include "ip4.hpp"
#include "net/link/tcp_segmentation.hpp"
#include "net/stack_parts.hpp"

namespace net {

void Ip4::forward(InterfaceId in, PacketPtr packet, LinkCast cast) {
  Ip4Counters& c = parts_.counters.ip4;
  // Only unicast to our MAC is routed (RFC 1812 §5.3.4: never link
  // broadcasts or multicasts), and only when forwarding is on.
  if (!forwarding_ || cast != LinkCast::unicast) {
    ++c.drop_not_for_us;
    return;
  }
  wire::Ip4View<uint8_t> v(packet->data(), packet->size());
  // RFC 1122 §3.2.1.3, RFC 1812 §5.3.7: nor to 127/8 (never outside a
  // host) or 0/8 ("this network").
  constexpr uint32_t this_network = 0;
  ip4::Addr dst = v.dst();
  if (dst.is_broadcast() || dst.is_multicast() || dst.is_loopback() ||
      dst.value >> 24 == this_network) {
    ++c.drop_not_for_us;
    return;
  }
  // RFC 1812 §5.3.1: a TTL that would reach 0 ends here, with time exceeded.
  if (v.ttl() <= 1) {
    ++c.drop_ttl_exceeded;
    parts_.icmp.send_error(wire::icmp4::time_exceeded, wire::icmp4::ttl_exceeded, packet->data(),
                           packet->size(), in);
    return;
  }
  std::optional<Route> route = parts_.routes.lookup(v.dst());
  if (!route) {
    ++c.drop_no_route;
    parts_.icmp.send_error(wire::icmp4::unreachable, wire::icmp4::net_unreachable, packet->data(),
                           packet->size(), in);
    return;
  }
  Link& out = parts_.link(route->interface);
  // RFC 2644 / RFC 1812 §5.3.5.2: a directed broadcast to another of our
  // subnets is not forwarded by default (it would make us a smurf amplifier).
  if (out.is_directed_broadcast(v.dst())) {
    ++c.drop_not_for_us;
    return;
  }
  // RFC 1191: too big for the next link and not to be fragmented. A
  // segment the host coalesced leaves as segments (the next NIC or the link
  // cuts it, decision 0093): theirs is the size that must fit, and they are
  // never fragmented (Linux's skb_gso_validate_network_len).
  bool coalesced = packet->flags & Packet::segmentation_offload;
  uint32_t leaves_as = coalesced ? tcp_segment_size(*packet) : v.total_length();
  if ((v.dont_fragment() || coalesced) && leaves_as > out.mtu()) {
    ++c.drop_fragmentation_needed;
    if (v.dont_fragment())
      parts_.icmp.send_error(wire::icmp4::unreachable, wire::icmp4::fragmentation_needed,
                             packet->data(), packet->size(), in, out.mtu());
    return;
  }
  v.decrement_ttl();
  if (!passes(Hook::forward, *packet, in, route->interface)) return;
  ++c.forwarded;
  ip4::Addr next_hop = route->gateway.is_any() ? v.dst() : route->gateway;
  post_route(in, route->interface, next_hop, std::move(packet));
}

}  // namespace net
