// ICMP and ICMPv6 errors about our datagrams, told to the socket that sent
// them (RFC 1122 §4.1.3.3: UDP passes ICMP errors up; RFC 4443 §2.4 (d):
// to the upper-layer process that sent the packet), one UdpError for both
// families. The ICMP layers proved the quote is of a packet from one of
// our addresses with the UDP header there (RFC 5927 §4.1); the socket is
// the one bound to its source port and address (or any()). Errors wait for
// the moment read handlers run (docs/net/handlers.md), bounded as
// datagrams are.
#include <algorithm>

#include "net/ip4/icmp4.hpp"
#include "net/ip6/icmp6.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp4.hpp"
#include "net/wire/icmp6.hpp"
#include "udp_layer.hpp"

namespace net {
namespace {

// RFC 792, RFC 1122 §3.2.2.1, RFC 1812 §5.2.7.1 (the prohibited codes).
UdpErrorKind kind4(uint8_t type, uint8_t code) {
  namespace icmp4 = wire::icmp4;
  if (type == icmp4::time_exceeded) return UdpErrorKind::time_exceeded;
  switch (code) {
    case icmp4::protocol_unreachable:
    case icmp4::port_unreachable:
      return UdpErrorKind::port_unreachable;
    case icmp4::fragmentation_needed:
      return UdpErrorKind::packet_too_big;
    case icmp4::net_prohibited:
    case icmp4::host_prohibited:
    case icmp4::communication_prohibited:
      return UdpErrorKind::prohibited;
    default:
      return UdpErrorKind::unreachable;
  }
}

// RFC 4443 §3.
UdpErrorKind kind6(uint8_t type, uint8_t code) {
  namespace icmp6 = wire::icmp6;
  switch (type) {
    case icmp6::packet_too_big:
      return UdpErrorKind::packet_too_big;
    case icmp6::time_exceeded:
      return UdpErrorKind::time_exceeded;
    case icmp6::parameter_problem:
      return UdpErrorKind::parameter_problem;
    default:
      break;
  }
  switch (code) {
    case icmp6::port_unreachable:
      return UdpErrorKind::port_unreachable;
    case icmp6::administratively_prohibited:
    case icmp6::source_policy_failed:
    case icmp6::reject_route:
      return UdpErrorKind::prohibited;
    default:
      return UdpErrorKind::unreachable;
  }
}

}  // namespace

void UdpLayer::icmp_error(const Icmp4ErrorReport& report) {
  wire::Ip4View<const uint8_t> ip(report.quoted, report.quoted_len);
  const uint8_t* u = report.quoted + ip.header_len();  // Icmp4 checked: 8 bytes are there
  UdpError e;
  e.kind = kind4(report.type, report.code);
  e.source = {ip.src(), wire::load16(u)};
  e.destination = {ip.dst(), wire::load16(u + 2)};
  e.reporter = report.from;
  // RFC 1191 §4: the next-hop MTU in the low 16 bits (0 from old routers).
  constexpr uint32_t mtu_mask = 0xffff;
  if (e.kind == UdpErrorKind::packet_too_big) e.mtu = report.rest & mtu_mask;
  e.type = report.type;
  e.code = report.code;
  queue_error(e);
}

void UdpLayer::icmp_error(const Icmp6ErrorReport& report) {
  wire::Ip6View<const uint8_t> ip(report.quoted, report.quoted_len);
  const uint8_t* u = report.quoted + report.upper;  // Icmp6 checked: 8 bytes are there
  UdpError e;
  e.kind = kind6(report.type, report.code);
  e.source = {ip.src(), wire::load16(u)};
  e.destination = {ip.dst(), wire::load16(u + 2)};
  e.reporter = report.from;
  // RFC 8201 §4: never below IPv6's minimum (the destination cache took the same).
  if (e.kind == UdpErrorKind::packet_too_big)
    e.mtu = std::max<uint32_t>(report.rest, wire::ip6_min_mtu);
  e.type = report.type;
  e.code = report.code;
  queue_error(e);
}

uint32_t UdpLayer::sender(const Endpoint& source) const {
  const uint32_t* first = ports_.find(source.port);
  uint32_t best = none;
  for (uint32_t i = first ? *first : none; i != none; i = slots_[i].next_on_port) {
    const Address& a = slots_[i].address;
    if (a == source.address) return i;  // bound to that address: it, surely
    if (a.is_any() && best == none) best = i;
  }
  return best;
}

void UdpLayer::queue_error(const UdpError& error) {
  uint32_t index = sender(error.source);
  if (index == none) {
    ++counters_.drop_error_no_socket;
    return;
  }
  if (!slots_[index].error) {
    ++counters_.rx_errors_ignored;
    return;
  }
  if (errors_.size() >= max_pending) {
    ++counters_.drop_queue_full;
    return;
  }
  errors_.push_back({index, slots_[index].generation, error});
  parts_.time.wake_by(parts_.time.now());
}

void UdpLayer::run_error_handlers() {
  // Each from a copy of its handler: it may close its socket, bind again
  // or replace itself. Errors for a socket closed meanwhile go.
  std::swap(errors_, errors_delivering_);
  for (const PendingError& p : errors_delivering_) {
    const Slot* s = find(p.slot, p.generation);
    if (!s || !s->error) {
      ++counters_.rx_errors_ignored;
      continue;
    }
    UdpSocket::ErrorHandler handler = s->error;
    ++counters_.rx_errors;
    try {
      handler(p.error);
    } catch (...) {
      ++counters_.handler_exceptions;  // the socket stays
    }
  }
  errors_delivering_.clear();
}

}  // namespace net
