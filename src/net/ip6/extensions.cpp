// The IPv6 extension-header chain (RFC 8200 §4), walked with limits: at
// most max_extension_headers, hop-by-hop only first (§4.1), options by
// their action bits (§4.2), routing headers with segments left refused
// (a host forwards nothing; type 0 is deprecated, RFC 5095 §3), fragments:
// atomic ones (offset 0, no more) taken as the datagram itself (RFC 6946),
// at others the walk stops: what follows is reassembly's (fragments.cpp).
#include "ip6.hpp"
#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

constexpr uint32_t extension_unit = 8;  // lengths count 8 bytes, not the first 8
constexpr uint32_t fragment_header_size = 8;
constexpr uint8_t option_pad1 = 0;  // §4.2: one byte, no length
constexpr uint8_t option_padn = 1;
// §4.2: the two high bits of an unknown option's type say what to do.
constexpr uint8_t option_action_skip = 0, option_action_discard = 1,
                  option_action_discard_report = 2, option_action_report_unicast = 3;

}  // namespace

void Ip6::parameter_problem(Packet& packet, InterfaceId in, uint8_t code, uint32_t pointer,
                            bool even_to_multicast) {
  parts_.icmp6.send_error(wire::icmp6::parameter_problem, code, pointer, packet.data(),
                          packet.size(), in, even_to_multicast);
}

bool Ip6::walk_options(Packet& packet, InterfaceId in, bool to_multicast, uint32_t at,
                       uint32_t len) {
  const uint8_t* p = packet.data();
  for (uint32_t i = at + 2; i < at + len;) {
    uint8_t type = p[i];
    if (type == option_pad1) {
      ++i;
      continue;
    }
    if (i + 2 > at + len || i + 2 + p[i + 1] > at + len) {
      ++parts_.counters.ip6.drop_bad_extension;
      parameter_problem(packet, in, wire::icmp6::erroneous_header, i);
      return false;
    }
    if (type != option_padn) {
      // No option is known to this host (no jumbograms, no router alert).
      switch (type >> 6) {
        case option_action_skip:
          break;
        case option_action_discard:
          ++parts_.counters.ip6.drop_unknown_option;
          return false;
        case option_action_discard_report:
          ++parts_.counters.ip6.drop_unknown_option;
          // RFC 4443 §2.4 (e.3): reported even about a group destination.
          parameter_problem(packet, in, wire::icmp6::unrecognized_option, i, true);
          return false;
        case option_action_report_unicast:
          ++parts_.counters.ip6.drop_unknown_option;
          if (!to_multicast) parameter_problem(packet, in, wire::icmp6::unrecognized_option, i);
          return false;
      }
    }
    i += 2 + p[i + 1];
  }
  return true;
}

bool Ip6::walk_extensions(Packet& packet, InterfaceId in, bool to_multicast, Chain& chain) {
  Ip6Counters& c = parts_.counters.ip6;
  const uint8_t* p = packet.data();
  uint32_t size = uint32_t(packet.size());
  chain.next_header = p[chain.next_header_at];
  chain.offset = wire::ip6_header_size;
  for (int count = 0;; ++count) {
    uint8_t type = chain.next_header;
    bool extension = type == wire::ip6_next_hop_by_hop || type == wire::ip6_next_destination ||
                     type == wire::ip6_next_routing || type == wire::ip6_next_fragment;
    if (type == wire::ip6_next_none) {
      ++c.drop_no_next_header;  // RFC 8200 §4.7: nothing follows
      return false;
    }
    if (!extension) return true;
    if (count == max_extension_headers) {
      ++c.drop_too_many_extensions;
      return false;
    }
    uint32_t at = chain.offset;
    if (at + extension_unit > size) {
      ++c.drop_bad_extension;  // truncated: nothing to point at
      return false;
    }
    uint32_t len = type == wire::ip6_next_fragment ? fragment_header_size
                                                   : (uint32_t(p[at + 1]) + 1) * extension_unit;
    if (at + len > size) {
      ++c.drop_bad_extension;
      return false;
    }
    if (type == wire::ip6_next_hop_by_hop && count != 0) {
      // §4.1: only right after the IPv6 header.
      ++c.drop_bad_extension;
      parameter_problem(packet, in, wire::icmp6::unrecognized_next_header, chain.next_header_at);
      return false;
    }
    if (type == wire::ip6_next_hop_by_hop || type == wire::ip6_next_destination) {
      if (!walk_options(packet, in, to_multicast, at, len)) return false;
    } else if (type == wire::ip6_next_routing) {
      constexpr uint32_t routing_type_at = 2, segments_left_at = 3;
      if (p[at + segments_left_at] != 0) {
        // §4.4: with segments left, a node that does not route it answers
        // parameter problem at the routing type; RFC 5095 §3: type 0 too.
        ++c.drop_routing_header;
        parameter_problem(packet, in, wire::icmp6::erroneous_header, at + routing_type_at);
        return false;
      }
    } else {
      constexpr uint16_t offset_mask = 0xfff8, more_flag = 1;
      uint16_t field = wire::load16(p + at + 2);
      if ((field & offset_mask) != 0 || (field & more_flag)) {
        chain.fragment_at = at;  // the rest is the fragmentable part
        return true;
      }
      ++c.rx_atomic_fragments;  // RFC 6946 §4: the whole datagram
    }
    chain.next_header_at = at;  // every extension header begins with its next header
    chain.next_header = p[at];
    chain.offset = at + len;
  }
}

}  // namespace net
