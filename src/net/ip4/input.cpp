// IPv4 input: header checks, prerouting, the local-or-forward decision,
// reassembly, input, and delivery to the protocols (RFC 1122 §3.2.1).
#include <algorithm>

#include "ip4.hpp"
#include "net/stack_parts.hpp"

namespace net {
namespace {

constexpr uint32_t loopback_net = 127;  // RFC 1122 §3.2.1.3: 127/8 never on a wire

}  // namespace

// RFC 1122 §3.2.1.3: no datagram comes from a broadcast or multicast
// address, from "this host" (0.0.0.0: we serve no DHCP), from loopback, or
// from one of our own addresses over the wire.
bool Ip4::bad_source(ip4::Addr src, InterfaceId in) const {
  return src.is_broadcast() || src.is_multicast() || src.is_any() ||
         (src.value >> 24) == loopback_net || parts_.link(in).is_directed_broadcast(src) ||
         is_local_address(src);
}

bool Ip4::is_for_us(ip4::Addr dst, InterfaceId in, LinkCast cast) const {
  const Link& link = parts_.link(in);
  if (dst.is_broadcast() || link.is_directed_broadcast(dst)) return true;
  if (dst.is_multicast()) return link.joined(dst);
  // The weak host model (RFC 1122 §3.3.4.2), as Linux: any of our
  // addresses on any interface. Unconfigured, unicast to our MAC is ours:
  // a DHCP offer may be sent to the address being offered (RFC 2131 §4.1).
  return is_local_address(dst) || (!link.is_configured() && cast == LinkCast::unicast);
}

void Ip4::receive(InterfaceId in, PacketPtr packet, LinkCast cast) {
  Ip4Counters& c = parts_.counters.ip4;
  ++c.rx;
  wire::Ip4View<uint8_t> v(packet->data(), packet->size());
  switch (v.check()) {
    case wire::Ip4Error::none:
      break;
    case wire::Ip4Error::truncated:
      ++c.drop_truncated;
      return;
    case wire::Ip4Error::bad_version:
      ++c.drop_bad_version;
      return;
    case wire::Ip4Error::bad_header_length:
      ++c.drop_bad_header_length;
      return;
    case wire::Ip4Error::bad_total_length:
      ++c.drop_bad_total_length;
      return;
    case wire::Ip4Error::bad_checksum:
      ++c.drop_bad_checksum;
      return;
  }
  packet->trim(v.total_length());  // Ethernet pads short frames
  if (bad_source(v.src(), in)) {
    ++c.drop_bad_source;
    return;
  }
  if (defragment_all_ && v.is_fragment()) {
    bool to_broadcast = cast != LinkCast::unicast || v.dst().is_broadcast();
    packet = reassembly_.add(std::move(packet), to_broadcast, parts_.time.now());
    parts_.time.wake_by(reassembly_.next_deadline());
    if (!packet) return;
  }
  if (!passes(Hook::prerouting, *packet, in, no_interface)) return;
  // The destination again: prerouting may have rewritten it (NAT).
  ip4::Addr dst = wire::Ip4View<uint8_t>(packet->data(), packet->size()).dst();
  if (is_for_us(dst, in, cast)) {
    local_input(in, std::move(packet), cast);
  } else {
    forward(in, std::move(packet), cast);
  }
}

void Ip4::local_input(InterfaceId in, PacketPtr packet, LinkCast cast) {
  wire::Ip4View<uint8_t> v(packet->data(), packet->size());
  if (v.is_fragment()) {
    bool to_broadcast = cast == LinkCast::broadcast || v.dst().is_broadcast() ||
                        parts_.link(in).is_directed_broadcast(v.dst());
    packet = reassembly_.add(std::move(packet), to_broadcast, parts_.time.now());
    parts_.time.wake_by(reassembly_.next_deadline());
    if (!packet) return;
  }
  if (!passes(Hook::input, *packet, in, no_interface)) return;
  deliver(in, std::move(packet), cast);
}

void Ip4::deliver(InterfaceId in, PacketPtr packet, LinkCast cast) {
  Ip4Counters& c = parts_.counters.ip4;
  wire::Ip4View<uint8_t> v(packet->data(), packet->size());
  Ip4Received info;
  info.header = wire::Ip4Repr::parse(v);
  info.header_len = v.header_len();
  info.in = in;
  info.to_multicast = v.dst().is_multicast();
  info.to_broadcast = cast == LinkCast::broadcast || v.dst().is_broadcast() ||
                      parts_.link(in).is_directed_broadcast(v.dst());
  Upper& upper = uppers_[protocols_[info.header.protocol]];
  if (!upper) {
    ++c.drop_unknown_protocol;
    // RFC 1122 §3.2.2.1: protocol unreachable SHOULD be sent (not about
    // broadcasts or multicasts, §3.2.2).
    if (!info.to_broadcast && !info.to_multicast) {
      parts_.icmp.send_error(wire::icmp4::unreachable, wire::icmp4::protocol_unreachable,
                             packet->data(), packet->size(), in);
    }
    return;
  }
  ++c.delivered;
  packet->pull(info.header_len);
  upper(info, std::move(packet));
}

}  // namespace net
