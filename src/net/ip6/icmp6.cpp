#include "icmp6.hpp"

#include <algorithm>
#include <cstring>

#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

enum class Chain : uint8_t { found, truncated, too_long, later_fragment };

// The upper-layer header behind the extension headers of a packet (as
// received or quoted, maybe malformed): its next-header value and offset,
// found with two bytes of it there at least. A fragment but the first holds
// no upper-layer header at all (RFC 8200 §4.5).
Chain find_upper(const uint8_t* ip, std::size_t len, uint8_t& next, std::size_t& at) {
  constexpr std::size_t unit = 8;
  next = ip[6];
  at = wire::ip6_header_size;
  for (int i = 0; i <= Ip6::max_extension_headers; ++i) {
    if (at + 2 > len) return Chain::truncated;
    if (next != wire::ip6_next_hop_by_hop && next != wire::ip6_next_destination &&
        next != wire::ip6_next_routing && next != wire::ip6_next_fragment)
      return Chain::found;
    constexpr uint16_t offset_mask = 0xfff8;
    if (next == wire::ip6_next_fragment && at + 4 <= len &&
        (wire::load16(ip + at + 2) & offset_mask) != 0)
      return Chain::later_fragment;
    std::size_t size =
        next == wire::ip6_next_fragment ? unit : (std::size_t(ip[at + 1]) + 1) * unit;
    next = ip[at];
    at += size;
  }
  return Chain::too_long;
}

// Whether the packet (as received, maybe malformed) carries an ICMPv6 error
// or redirect behind its extension headers.
bool is_icmp6_error(const uint8_t* ip, std::size_t len) {
  uint8_t next = 0;
  std::size_t at = 0;
  switch (find_upper(ip, len, next, at)) {
    case Chain::found:
      break;
    case Chain::truncated:
      return false;  // no room for an ICMPv6 header: none is there
    case Chain::later_fragment:
      return false;  // no upper-layer header in it (as Linux's is_ineligible)
    case Chain::too_long:
      return true;  // a chain too long to follow: err on the side of silence
  }
  if (next != wire::ip6_next_icmp6) return false;
  return ip[at] < wire::icmp6::first_informational || ip[at] == wire::icmp6::redirect;
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
    case wire::icmp6::router_advertisement:
    case wire::icmp6::redirect:
      // RFC 4861 §6.1.2, §7.1.1, §7.1.2, §8.1: hop limit 255 (from on the
      // link), code 0; the rest is Ndp's (NS, NA), RouterDiscovery's (RA)
      // or redirect.cpp's.
      if (info.header.hop_limit != wire::nd::hop_limit || v.code() != 0) {
        ++counters_.drop_bad_nd;
        return;
      }
      if (v.type() == wire::icmp6::redirect) {
        redirect(info, v.data(), v.size());
      } else if (v.type() == wire::icmp6::router_advertisement) {
        parts_.link(info.in).routers().receive(info, v.data(), v.size());
      } else {
        parts_.link(info.in).ndp().receive(info, v.data(), v.size());
      }
      return;
    case wire::icmp6::multicast_listener_query:
      parts_.link(info.in).mld().receive(info, v.data(), v.size());
      return;
    case wire::icmp6::multicast_listener_report_v1:  // another host's (RFC 2710 §4)
      parts_.link(info.in).mld().receive_report(info, v.data(), v.size());
      return;
    case wire::icmp6::packet_too_big:
      ++counters_.rx_errors;
      packet_too_big(v.data(), v.size(), info.header.src);
      return;
    default:
      // Errors about what we sent go to the upper layer they quote (TCP,
      // UDP); RS: a host is no router.
      if (v.type() < wire::icmp6::first_informational) {
        ++counters_.rx_errors;
        report_error(v.data(), v.size(), info.header.src);
      } else {
        ++counters_.rx_ignored;
      }
  }
}

void Icmp6::set_error_handler(uint8_t next_header, ErrorHandler handler) {
  for (auto& [n, h] : error_handlers_) {
    if (n == next_header) {
      h = std::move(handler);
      return;
    }
  }
  error_handlers_.emplace_back(next_header, std::move(handler));
}

// RFC 5927 §4.1: an error is believed only about what we could have sent
// (from one of our addresses), with the upper-layer header's first 8 bytes
// there to say whose it was.
bool Icmp6::quote_of(const uint8_t* message, std::size_t len, Quote& q) const {
  constexpr std::size_t upper_bytes = 8;
  q.ip = message + wire::icmp6_header_size;
  q.len = len - wire::icmp6_header_size;
  return q.len >= wire::ip6_header_size && (q.ip[0] >> 4) == wire::ip6_version &&
         find_upper(q.ip, q.len, q.next, q.upper) == Chain::found &&
         q.upper + upper_bytes <= q.len &&
         parts_.ip6.is_local_address(wire::Ip6View<const uint8_t>(q.ip, q.len).src());
}

// RFC 4443 §2.4 (d): an error goes to the upper layer that sent the packet
// it quotes.
void Icmp6::report_error(const uint8_t* message, std::size_t len, const ip6::Addr& from) {
  Quote q;
  bool ours = quote_of(message, len, q);
  auto handler = std::find_if(error_handlers_.begin(), error_handlers_.end(),
                              [&](const auto& h) { return ours && h.first == q.next; });
  if (handler == error_handlers_.end()) {
    ++counters_.rx_ignored;
    return;
  }
  wire::Icmp6View<const uint8_t> m(message, len);
  handler->second(
      Icmp6ErrorReport{m.type(), m.code(), wire::load32(message + 4), q.ip, q.len, q.upper, from});
}

// RFC 8201 §4: a Packet Too Big about a datagram or an echo reply we sent
// lowers the path MTU to its destination (never below 1280, never raised);
// datagrams after it leave in fragments that fit (RFC 8200 §4.5). TCP's go
// to the connection (which checks the quoted sequence number, RFC 5927);
// a datagram's also to the UDP socket that sent it.
// A quote that is not ours, or of a packet that fitted the MTU it reports,
// is forged or garbled (RFC 4443 §2.4, RFC 8201 §6): counted, no effect.
void Icmp6::packet_too_big(const uint8_t* message, std::size_t len, const ip6::Addr& from) {
  ++counters_.rx_packet_too_big;
  Quote q;
  if (!quote_of(message, len, q)) {
    ++counters_.drop_bad_packet_too_big;
    return;
  }
  wire::Ip6View<const uint8_t> quoted(q.ip, q.len);
  uint32_t mtu = std::max<uint32_t>(wire::load32(message + 4), wire::ip6_min_mtu);
  uint32_t sent = wire::ip6_header_size + quoted.payload_length();
  bool echo = q.next == wire::ip6_next_icmp6 && q.ip[q.upper] == wire::icmp6::echo_reply;
  if (q.next == wire::ip_protocol_tcp) {
    report_error(message, len, from);
    return;
  }
  if ((q.next != wire::ip_protocol_udp && !echo) || sent <= mtu) {
    ++counters_.drop_bad_packet_too_big;
    return;
  }
  parts_.ip6.destinations().lower_path_mtu(quoted.dst(), mtu, parts_.time.now());
  if (q.next == wire::ip_protocol_udp) report_error(message, len, from);
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
     : type == wire::icmp6::time_exceeded   ? counters_.tx_time_exceeded
     : type == wire::icmp6::packet_too_big  ? counters_.tx_packet_too_big
                                            : counters_.tx_unreachable);
}

}  // namespace net
