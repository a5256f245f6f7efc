#include "icmp6.hpp"

#include <algorithm>
#include <cstring>

#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

// Whether the packet (as received, maybe malformed) carries an ICMPv6 error
// or redirect behind its extension headers.
bool is_icmp6_error(const uint8_t* ip, std::size_t len) {
  constexpr std::size_t unit = 8;
  uint8_t next = ip[6];
  std::size_t at = wire::ip6_header_size;
  for (int i = 0; i <= Ip6::max_extension_headers; ++i) {
    if (at + 2 > len) return false;  // no room for an ICMPv6 header: none is there
    if (next == wire::ip6_next_icmp6) {
      return ip[at] < wire::icmp6::first_informational || ip[at] == wire::icmp6::redirect;
    }
    if (next != wire::ip6_next_hop_by_hop && next != wire::ip6_next_destination &&
        next != wire::ip6_next_routing && next != wire::ip6_next_fragment)
      return false;
    std::size_t size =
        next == wire::ip6_next_fragment ? unit : (std::size_t(ip[at + 1]) + 1) * unit;
    next = ip[at];
    at += size;
  }
  return true;  // a chain too long to follow: err on the side of silence
}

}  // namespace

Icmp6::Icmp6(StackParts& parts) : parts_(parts), counters_(parts.counters.icmp6) {}

void Icmp6::receive(const Ip6Received& info, PacketPtr message) {
  ++counters_.rx;
  bool verified = message->flags & Packet::checksum_verified;
  wire::Icmp6View<uint8_t> v(message->data(), message->size());
  switch (v.check(info.header.src, info.header.dst, !verified)) {
    case wire::Icmp6Error::none:
      break;
    case wire::Icmp6Error::truncated:
      ++counters_.drop_truncated;
      return;
    case wire::Icmp6Error::bad_checksum:
      ++counters_.drop_bad_checksum;
      return;
  }
  switch (v.type()) {
    case wire::icmp6::echo_request:
      ++counters_.rx_echo_requests;
      echo_reply(info, v.data(), v.size());
      return;
    case wire::icmp6::neighbor_solicitation:
    case wire::icmp6::neighbor_advertisement:
      // RFC 4861 §7.1.1, §7.1.2: hop limit 255 (from on the link), code 0.
      if (info.header.hop_limit != wire::nd::hop_limit || v.code() != 0) {
        ++counters_.drop_bad_nd;
        return;
      }
      parts_.link(info.in).ndp().receive(info, v.data(), v.size());
      return;
    default:
      // Errors about what we sent: nothing in this slice reacts to them yet
      // (no TCP over IPv6, no path MTU); RS, RA, redirects: no SLAAC yet.
      ++(v.type() < wire::icmp6::first_informational ? counters_.rx_errors : counters_.rx_ignored);
  }
}

// RFC 4443 §4.2: the request's identifier, sequence and data, back to its
// source; from the address it was sent to, or (to a group, which §4.1 says
// SHOULD be answered) from ours of the matching scope.
void Icmp6::echo_reply(const Ip6Received& info, const uint8_t* request, std::size_t len) {
  const wire::Ip6Repr& ip = info.header;
  if (ip.src.is_any()) {
    ++counters_.rx_ignored;
    return;
  }
  ip6::Addr source = ip6addr::is_multicast(ip.dst) ? ip6::Addr{} : ip.dst;
  auto path = parts_.ip6.route(ip.src, source, info.in);
  if (!path) return;
  Link& link = parts_.link(path->interface);
  auto [packet, m, offload] = link.allocate(uint32_t(len));
  if (!packet) {
    ++counters_.drop_no_buffer;
    return;
  }
  std::memcpy(m, request, len);
  m[0] = wire::icmp6::echo_reply;
  wire::icmp6_fill_checksum(m, len, path->source, ip.src);
  if (parts_.ip6.send(*path, ip.src, wire::ip6_next_icmp6, std::move(packet)) == Status::ok)
    ++counters_.tx_echo_replies;
}

// RFC 4443 §2.4 (e): not about an ICMPv6 error or redirect, not about a
// packet to a group (but the exceptions the caller names), not to an
// unspecified or group source; (f): rate limited.
bool Icmp6::error_allowed(const uint8_t* ip, std::size_t len, bool even_to_multicast) {
  if (len < wire::ip6_header_size) return false;
  wire::Ip6View<const uint8_t> v(ip, len);
  if (v.src().is_any() || ip6addr::is_multicast(v.src())) return false;
  if (ip6addr::is_multicast(v.dst()) && !even_to_multicast) return false;
  if (is_icmp6_error(ip, len)) return false;
  if (!error_tokens_.take(parts_.time.now())) {
    ++counters_.drop_rate_limited;
    return false;
  }
  return true;
}

void Icmp6::send_error(uint8_t type, uint8_t code, uint32_t rest, const uint8_t* ip,
                       std::size_t len, InterfaceId in, bool even_to_multicast) {
  if (!error_allowed(ip, len, even_to_multicast)) return;
  wire::Ip6View<const uint8_t> v(ip, len);
  std::size_t quoted =
      std::min(len, error_packet_max - wire::ip6_header_size - wire::icmp6_header_size);
  // From the address the packet was sent to when it is ours (§2.2).
  ip6::Addr source = parts_.ip6.is_local_address(v.dst()) ? v.dst() : ip6::Addr{};
  auto path = parts_.ip6.route(v.src(), source, in);
  if (!path) return;
  PacketPtr packet = parts_.link(path->interface).allocate();
  auto size = uint32_t(wire::icmp6_header_size + quoted);
  uint8_t* m = packet ? packet->append(size) : nullptr;
  if (!m) {
    ++counters_.drop_no_buffer;
    return;
  }
  m[0] = type;
  m[1] = code;
  wire::store32(m + 4, rest);
  std::memcpy(m + wire::icmp6_header_size, ip, quoted);
  wire::icmp6_fill_checksum(m, size, path->source, v.src());
  if (parts_.ip6.send(*path, v.src(), wire::ip6_next_icmp6, std::move(packet)) != Status::ok)
    return;
  ++(type == wire::icmp6::parameter_problem ? counters_.tx_parameter_problem
                                            : counters_.tx_unreachable);
}

}  // namespace net
