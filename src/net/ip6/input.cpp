// IPv6 input (RFC 8200): header checks, prerouting, the addresses a host
// accepts (RFC 4291) or forwarding (forward.cpp), the extension-header walk
// (extensions.cpp), input and delivery.
#include "ip6.hpp"
#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp6.hpp"

namespace net {

// The weak host model, as for IPv4: any of our unicast addresses on any
// interface; of groups, all-nodes and the solicited-node groups of the
// arriving interface's addresses (RFC 4291 §2.8).
bool Ip6::is_for_us(const ip6::Addr& dst, InterfaceId in) const {
  if (!ip6addr::is_multicast(dst)) return is_local_address(dst);
  const Link& link = parts_.link(in);
  return dst == ip6addr::all_nodes() || link.is_solicited_group6(dst);
}

void Ip6::receive(InterfaceId in, PacketPtr packet, LinkCast cast) {
  Ip6Counters& c = parts_.counters.ip6;
  ++c.rx;
  wire::Ip6View<uint8_t> v(packet->data(), packet->size());
  switch (v.check()) {
    case wire::Ip6Error::none:
      break;
    case wire::Ip6Error::truncated:
      ++c.drop_truncated;
      return;
    case wire::Ip6Error::bad_version:
      ++c.drop_bad_version;
      return;
    case wire::Ip6Error::bad_payload_length:
      ++c.drop_bad_payload_length;
      return;
  }
  packet->trim(wire::ip6_header_size + v.payload_length());  // Ethernet pads short frames
  ip6::Addr src = v.src(), dst = v.dst();
  // RFC 4291 §2.7: never from a group; §2.5.3: loopback never on a wire;
  // §2.5.5.2: IPv4-mapped addresses are for sockets, not packets (RFC 6890).
  if (ip6addr::is_multicast(src) || ip6addr::is_loopback(src) || ip6addr::is_ip4_mapped(src) ||
      ip6addr::is_loopback(dst) || ip6addr::is_ip4_mapped(dst) ||
      (ip6addr::is_multicast(dst) && ip6addr::multicast_scope(dst) < 2) || is_local_address(src)) {
    ++c.drop_bad_address;
    return;
  }
  if (!passes(Hook::prerouting, *packet, in, no_interface)) return;
  // The destination again: prerouting may have rewritten it (NAT).
  dst = wire::Ip6View<uint8_t>(packet->data(), packet->size()).dst();
  if (!is_for_us(dst, in)) {
    forward(in, std::move(packet), cast);
    return;
  }
  deliver(in, std::move(packet), cast != LinkCast::unicast || ip6addr::is_multicast(dst));
}

void Ip6::deliver(InterfaceId in, PacketPtr packet, bool to_multicast, bool reassembled) {
  Ip6Counters& c = parts_.counters.ip6;
  Chain chain;
  if (!walk_extensions(*packet, in, to_multicast, chain)) return;
  if (chain.fragment_at) {
    if (reassembled) {
      ++c.drop_fragment_bad;  // a fragment inside a fragment: one reassembly per datagram
      return;
    }
    PacketPtr whole = reassemble(in, std::move(packet), to_multicast, chain);
    // The whole datagram: its header chain walked again, the Fragment header gone.
    if (whole) deliver(in, std::move(whole), to_multicast, true);
    return;
  }
  if (!passes(Hook::input, *packet, in, no_interface)) return;
  wire::Ip6View<uint8_t> v(packet->data(), packet->size());
  Ip6Received info;
  info.header = wire::Ip6Repr::parse(v);
  info.header_len = chain.offset;
  info.in = in;
  info.to_multicast = to_multicast;
  Upper& upper = uppers_[protocols_[chain.next_header]];
  if (!upper) {
    ++c.drop_unknown_next_header;
    // RFC 8200 §4: parameter problem code 1, pointing at the field that
    // named the unknown header.
    parameter_problem(*packet, in, wire::icmp6::unrecognized_next_header, chain.next_header_at);
    return;
  }
  ++c.delivered;
  packet->pull(chain.offset);
  upper(info, std::move(packet));
}

}  // namespace net
