// The host stack, assembled: every delegate joining two layers is set here
// and nowhere else, so this file is the map of the stack.
//
//   receive:  Nic → Link (Ethernet) ─┬→ ARP
//                                    ├→ IPv6 → extension headers → ICMPv6 (echo, ND → Ndp), UDP
//                                    └→ IPv4 ─┬→ [prerouting] ─┬→ [input] → ICMPv4
//                                             │                │           UDP → sockets, DHCP
//                                             │                │           TCP → connections,
//                                             listeners │                └→ [forward] ─┐
//   send:     UDP, TCP, ICMPv4 → IPv4 routing → [output] ───────────────────────┴→ [postrouting]
//             → fragmentation → Link (ARP, Ethernet, transmit queue) → Nic
//   errors:   UDP closed port, unknown protocol, TTL, no route, DF → ICMPv4;
//             reassembly timeout → ICMPv4 time exceeded;
//             ICMPv4 errors quoting a TCP segment → TCP (path MTU, connect)
//   IPv6 out: UDP, ICMPv6 → Ip6::route (prefix, gateway) → Link → Ndp (resolve) → Nic
//   ready:    an interface's transmit queue drains → UDP and TCP senders resume
//   time:     Clock → Stack::poll → ARP, DHCP, reassembly, loopback, TCP timers
#include <algorithm>
#include <net/stack.hpp>
#include <stdexcept>
#include <string>

#include "stack_parts.hpp"
#include "wire/icmp6.hpp"

namespace net {

StackParts::StackParts(Stack& s, Clock& clock, const StackConfig& config)
    : stack(s),
      time(clock),
      ip4(*this, config),
      icmp(*this),
      ip6(*this, config),
      icmp6(*this),
      udp_layer(*this),
      tcp_layer(*this, config) {}

void StackParts::run_handlers() {
  // Not again from inside a handler (one that polls the stack, or whose
  // send drained a queue): what it queues runs in this pass or the next.
  if (handlers_running) return;
  handlers_running = true;
  udp_layer.run_handlers();
  if (tcp_layer.handlers_pending()) tcp_layer.run_handlers();  // (none, for most frames)
  // Last: a lease that a DHCP handler just took is announced in this pass.
  for (std::size_t i = 0; i < link_count(); ++i) link(InterfaceId(i)).run_config_handlers();
  handlers_running = false;
}

bool StackParts::handlers_pending() const {
  for (std::size_t i = 0; i < link_count(); ++i)
    if (link(InterfaceId(i)).config_handlers_due()) return true;
  return udp_layer.handlers_pending() || tcp_layer.handlers_pending();
}

void StackParts::transmit_ready() {
  udp_layer.writable();
  tcp_layer.writable();
}

Stack::Stack(Clock& clock, const StackConfig& config)
    : parts_(std::make_unique<StackParts>(*this, clock, config)) {
  StackParts& p = *parts_;
  p.ip4.set_forwarding(config.forwarding);
  p.ip6.set_forwarding(config.forwarding);
  p.ip4.set_protocol(wire::ip_protocol_icmp, [&p](const Ip4Received& info, PacketPtr message) {
    p.icmp.receive(info, std::move(message));
  });
  p.ip4.set_protocol(wire::ip_protocol_udp, [&p](const Ip4Received& info, PacketPtr datagram) {
    p.udp_layer.receive(info, std::move(datagram));
  });
  p.ip4.set_protocol(wire::ip_protocol_tcp, [&p](const Ip4Received& info, PacketPtr segment) {
    p.tcp_layer.receive(info, std::move(segment));
  });
  p.ip6.set_protocol(wire::ip6_next_icmp6, [&p](const Ip6Received& info, PacketPtr message) {
    p.icmp6.receive(info, std::move(message));
  });
  p.ip6.set_protocol(wire::ip_protocol_udp, [&p](const Ip6Received& info, PacketPtr datagram) {
    p.udp_layer.receive(info, std::move(datagram));
  });
  p.ip6.set_protocol(wire::ip_protocol_tcp, [&p](const Ip6Received& info, PacketPtr segment) {
    p.tcp_layer.receive(info, std::move(segment));
  });
  p.icmp.set_error_handler(wire::ip_protocol_tcp, [&p](const Icmp4ErrorReport& report) {
    p.tcp_layer.icmp_error(report);
  });
  p.icmp6.set_error_handler(wire::ip_protocol_tcp, [&p](const Icmp6ErrorReport& report) {
    p.tcp_layer.icmp_error(report);
  });
  p.icmp.set_error_handler(wire::ip_protocol_udp, [&p](const Icmp4ErrorReport& report) {
    p.udp_layer.icmp_error(report);
  });
  p.icmp6.set_error_handler(wire::ip_protocol_udp, [&p](const Icmp6ErrorReport& report) {
    p.udp_layer.icmp_error(report);
  });
  p.ip4.reassembly().set_time_exceeded([&p](const uint8_t* ip, std::size_t len) {
    p.icmp.send_error(wire::icmp4::time_exceeded, wire::icmp4::reassembly_time_exceeded, ip, len);
  });
  // RFC 8200 §4.5: time exceeded, code 1, quoting the first fragment.
  p.ip6.reassembly().set_time_exceeded([&p](const uint8_t* ip, std::size_t len) {
    p.icmp6.send_error(wire::icmp6::time_exceeded, wire::icmp6::reassembly_time_exceeded, 0, ip,
                       len, no_interface);
  });
  clock.set_wakeup([this] { poll(); });
}

Stack::~Stack() {
  parts_->time.clock().set_wakeup(nullptr);
  parts_->time.clock().wake_at(Clock::never);
  for (auto& interface : parts_->interfaces) interface->nic().set_receive(nullptr);
}

Interface& Stack::add_interface(Nic& nic) {
  StackParts& p = *parts_;
  auto id = InterfaceId(p.interfaces.size());
  auto link = std::make_unique<Link>(p, nic, id);
  Link& l = *link;
  p.interfaces.push_back(std::unique_ptr<Interface>(new Interface(std::move(link))));
  l.set_interface(p.interfaces.back().get());
  p.routes.set_interface_count(p.interfaces.size());
  p.routes6.set_interface_count(p.interfaces.size());
  // Each frame is done with before the next: its handlers run between the
  // frames of the driver's pass (docs/net/handlers.md).
  nic.set_receive([&l, &p](PacketPtr frame) {
    l.receive(std::move(frame));
    p.run_handlers();
  });
  return *p.interfaces.back();
}

Interface& Stack::interface(InterfaceId id) {
  if (id >= parts_->interfaces.size()) {
    throw std::out_of_range("net::Stack::interface(" + std::to_string(id) +
                            "): no such interface (" + std::to_string(parts_->interfaces.size()) +
                            " found)");
  }
  return *parts_->interfaces[id];
}
std::size_t Stack::interface_count() const { return parts_->interfaces.size(); }
Udp& Stack::udp() { return parts_->udp; }
Tcp& Stack::tcp() { return parts_->tcp; }
Routes& Stack::routes() { return parts_->routes; }
Routes6& Stack::routes6() { return parts_->routes6; }
Hooks& Stack::hooks() { return parts_->hooks; }
void Stack::set_forwarding(bool on) {
  parts_->ip4.set_forwarding(on);
  parts_->ip6.set_forwarding(on);
}
bool Stack::forwarding() const { return parts_->ip4.forwarding(); }
void Stack::set_defragment_all(bool on) { parts_->ip4.set_defragment_all(on); }
void Stack::send_icmp_error(uint8_t type, uint8_t code, const Packet& packet, InterfaceId in) {
  parts_->icmp.send_error(type, code, packet.data(), packet.size(), in);
}
void Stack::send_icmp6_error(uint8_t type, uint8_t code, const Packet& packet, InterfaceId in) {
  parts_->icmp6.send_error(type, code, 0, packet.data(), packet.size(), in);
}
const StackCounters& Stack::counters() const { return parts_->counters; }
Clock& Stack::clock() { return parts_->time.clock(); }
StackParts& Stack::parts() { return *parts_; }

void Stack::poll() {
  StackParts& p = *parts_;
  p.time.woke();
  uint64_t now = p.time.now();
  for (std::size_t i = 0; i < p.link_count(); ++i) p.link(InterfaceId(i)).poll(now);
  p.ip4.poll(now);
  p.ip6.poll(now);
  p.tcp_layer.poll(now);
  // The handlers of the step's work, and of anything queued since the last
  // pass (docs/net/handlers.md); what they start waits for the next step.
  p.run_handlers();
  p.time.woke();  // (the wake-up the work above asked for is this one)
  p.time.wake_by(p.handlers_pending() ? p.time.now() : next_deadline());
}

uint64_t Stack::next_deadline() const {
  const StackParts& p = *parts_;
  uint64_t earliest =
      std::min({p.ip4.next_deadline(), p.ip6.next_deadline(), p.tcp_layer.next_deadline()});
  for (std::size_t i = 0; i < p.link_count(); ++i)
    earliest = std::min(earliest, p.link(InterfaceId(i)).next_deadline());
  return earliest;
}

}  // namespace net
