// The host's network stack: interfaces below (one per NIC), one IPv4 layer
// above them with a routing table, hook points and the sockets of every
// protocol, shared by all interfaces. The wiring of its layers is in one
// file, src/net/stack.cpp; docs/net/README.md shows the API at work.
//
//   net::Stack& stack = net::stack();            // the image's stack, on its NICs
//   auto socket = *stack.udp().bind(53);
//   auto listener = *stack.tcp().listen(80, [](net::TcpConnection c) { ... });
//   stack.interface(0).on_config([](net::Interface& i) { ... });
#pragma once
#include <cstddef>
#include <memory>
#include <net/clock.hpp>
#include <net/config.hpp>
#include <net/counters.hpp>
#include <net/hooks.hpp>
#include <net/interface.hpp>
#include <net/nic.hpp>
#include <net/routes.hpp>
#include <net/tcp.hpp>
#include <net/udp.hpp>

namespace net {

struct StackParts;  // the layers (src/net/stack_parts.hpp)

class Stack {
 public:
  // A stack without interfaces, on `clock` (both must outlive it).
  explicit Stack(Clock& clock, const StackConfig& config = {});
  ~Stack();
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;

  // Adds an interface on `nic` (which must outlive the stack) and takes over
  // its receive path. Ids count from 0 in the order added.
  Interface& add_interface(Nic& nic);
  Interface& interface(InterfaceId id);
  std::size_t interface_count() const;

  Udp& udp();
  Tcp& tcp();
  Routes& routes();
  Routes6& routes6();  // IPv6's static routes (api/net/routes.hpp)
  Hooks& hooks();

  // Forwarding between interfaces (a router), IPv4 and IPv6 alike: off
  // unless turned on (decision 0134).
  void set_forwarding(bool on);
  bool forwarding() const;
  // Reassemble every fragmented datagram before prerouting, forwarded ones
  // too (what Linux's conntrack does), instead of only those for this host.
  void set_defragment_all(bool on);

  // An ICMP error (RFC 792) about `packet` (data() at its IPv4 header) that
  // came in on `in` (no_interface: one of this host's own), sent as the
  // stack sends its own errors: rate limited, never about ICMP errors,
  // broadcasts or later fragments. For a hook that rejects what it drops.
  void send_icmp_error(uint8_t type, uint8_t code, const Packet& packet,
                       InterfaceId in = no_interface);
  // The same in ICMPv6 (RFC 4443 §2.4) about `packet` (data() at its IPv6
  // header): rate limited, never about ICMPv6 errors or to multicast.
  void send_icmp6_error(uint8_t type, uint8_t code, const Packet& packet,
                        InterfaceId in = no_interface);

  const StackCounters& counters() const;
  Clock& clock();

  // Runs the protocols' due timed work (the clock's wake-up does this).
  void poll();
  // When poll() next has work; Clock::never when nothing is pending.
  uint64_t next_deadline() const;

  StackParts& parts();  // for the stack's own layers

 private:
  std::unique_ptr<StackParts> parts_;
};

// The image's stack over the platform's NICs (virtio-net in an image, TAP
// devices in a Linux process), built and configured on first use from the
// embedded JSON and the command line (docs/net/README.md). A bad
// configuration panics with a message that names the field.
Stack& stack();

}  // namespace net
