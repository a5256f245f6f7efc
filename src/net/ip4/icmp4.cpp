#include "icmp4.hpp"

#include <algorithm>
#include <cstring>

#include "net/stack_parts.hpp"
#include "net/wire/icmp4.hpp"

namespace net {

Icmp4::Icmp4(StackParts& parts) : parts_(parts), counters_(parts.counters.icmp4) {}

void Icmp4::receive(const Ip4Received& info, PacketPtr message) {
  ++counters_.rx;
  bool verified = message->flags & Packet::checksum_verified;
  wire::Icmp4View<uint8_t> v(message->data(), message->size());
  switch (v.check(!verified)) {
    case wire::Icmp4Error::none:
      break;
    case wire::Icmp4Error::truncated:
      ++counters_.drop_truncated;
      return;
    case wire::Icmp4Error::bad_checksum:
      ++counters_.drop_bad_checksum;
      return;
  }
  if (v.type() == wire::icmp4::unreachable || v.type() == wire::icmp4::time_exceeded) {
    report_error(v, info.header.src);
    return;
  }
  if (v.type() != wire::icmp4::echo_request || v.code() != 0) {
    ++counters_.rx_ignored;
    return;
  }
  ++counters_.rx_echo_requests;
  // RFC 1122 §3.2.2.6: an echo to a broadcast address may be ignored (smurf).
  if (info.to_broadcast || info.to_multicast) {
    ++counters_.rx_ignored;
    return;
  }
  // The reply is the request turned around in its own buffer (RFC 792: same
  // identifier, sequence and data), from the address it was sent to. RFC
  // 1624: only the type byte changes, so the checksum is updated, not redone.
  uint8_t* m = message->data();
  uint16_t before = wire::load16(m);
  m[0] = wire::icmp4::echo_reply;
  wire::store16(m + 2, wire::checksum_update(wire::load16(m + 2), before, wire::load16(m)));
  message->flags = 0;
  auto path = parts_.ip4.route(info.header.src, info.header.dst);
  if (!path) return;
  if (parts_.ip4.send(*path, info.header.src, wire::ip_protocol_icmp, std::move(message)) ==
      Status::ok)
    ++counters_.tx_echo_replies;
}

void Icmp4::set_error_handler(uint8_t protocol, ErrorHandler handler) {
  for (auto& [p, h] : error_handlers_) {
    if (p == protocol) {
      h = std::move(handler);
      return;
    }
  }
  error_handlers_.emplace_back(protocol, std::move(handler));
}

void Icmp4::report_error(const wire::Icmp4View<uint8_t>& message, ip4::Addr from) {
  // RFC 792: the quoted datagram's header and its first 8 bytes at least;
  // RFC 5927 §4.1: only about what we could have sent.
  wire::Icmp4View<uint8_t> m = message;
  wire::Ip4View<const uint8_t> quoted(m.payload(), m.payload_len());
  bool whole = m.payload_len() >= wire::ip4_header_min && quoted.version() == wire::ip4_version &&
               quoted.header_len() >= wire::ip4_header_min &&
               quoted.header_len() + 8 <= m.payload_len();
  auto handler = std::find_if(error_handlers_.begin(), error_handlers_.end(),
                              [&](const auto& h) { return whole && h.first == quoted.protocol(); });
  if (!whole || handler == error_handlers_.end() || !parts_.ip4.is_local_address(quoted.src())) {
    ++counters_.rx_ignored;
    return;
  }
  handler->second(
      Icmp4ErrorReport{m.type(), m.code(), m.rest(), m.payload(), m.payload_len(), from});
}

bool Icmp4::error_allowed(const uint8_t* ip, std::size_t len) {
  wire::Ip4View<const uint8_t> v(ip, len);
  if (len < wire::ip4_header_min || v.header_len() < wire::ip4_header_min || v.header_len() > len)
    return false;
  // RFC 1122 §3.2.2: never about an ICMP error, a non-initial fragment, or
  // a datagram from or to a broadcast/multicast address or from 0.0.0.0.
  if (v.fragment_offset() != 0) return false;
  if (v.src().is_any() || v.src().is_broadcast() || v.src().is_multicast()) return false;
  if (v.dst().is_broadcast() || v.dst().is_multicast()) return false;
  if (v.protocol() == wire::ip_protocol_icmp) {
    if (len < v.header_len() + 1) return false;
    uint8_t type = ip[v.header_len()];
    if (type != wire::icmp4::echo_request && type != wire::icmp4::echo_reply) return false;
  }
  if (!error_tokens_.take(parts_.time.now())) {
    ++counters_.drop_rate_limited;
    return false;
  }
  return true;
}

void Icmp4::send_error(uint8_t type, uint8_t code, const uint8_t* ip, std::size_t len,
                       InterfaceId in, uint32_t rest) {
  if (!error_allowed(ip, len)) return;
  wire::Ip4View<const uint8_t> v(ip, len);
  std::size_t quoted = std::min<std::size_t>(
      len, error_datagram_max - wire::ip4_header_min - wire::icmp4_header_size);
  // About a datagram addressed to us: from the address it was sent to, as
  // a host answers (and Linux's icmp_send, whatever interface it came in
  // on). About one passing through: from the address of the interface it
  // came in on (RFC 1812 §4.3.2.4 allows it), else whatever routing picks.
  ip4::Addr source = parts_.ip4.is_local_address(v.dst()) ? v.dst()
                     : in != no_interface                 ? parts_.link(in).address()
                                                          : ip4::Addr{};
  auto path = parts_.ip4.route(v.src(), source);
  if (!path) return;
  PacketPtr packet = parts_.link(path->interface).allocate();
  uint8_t* m = packet ? packet->append(uint32_t(wire::icmp4_header_size + quoted)) : nullptr;
  if (!m) {
    ++counters_.drop_no_buffer;
    return;
  }
  std::memcpy(m + wire::icmp4_header_size, ip, quoted);
  wire::Icmp4Repr{type, code, rest}.emit(m, wire::icmp4_header_size + quoted);
  if (parts_.ip4.send(*path, v.src(), wire::ip_protocol_icmp, std::move(packet)) == Status::ok)
    count_sent(type, code);
}

void Icmp4::count_sent(uint8_t type, uint8_t code) {
  if (type == wire::icmp4::time_exceeded) {
    ++counters_.tx_time_exceeded;
    return;
  }
  switch (code) {
    case wire::icmp4::protocol_unreachable:
      ++counters_.tx_protocol_unreachable;
      break;
    case wire::icmp4::port_unreachable:
      ++counters_.tx_port_unreachable;
      break;
    case wire::icmp4::fragmentation_needed:
      ++counters_.tx_fragmentation_needed;
      break;
    default:
      ++counters_.tx_net_unreachable;
      break;
  }
}

}  // namespace net
