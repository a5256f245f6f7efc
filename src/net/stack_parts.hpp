// The host stack's layers, held together (api/net/stack.hpp). Every layer
// reaches the others through this struct; src/net/stack.cpp joins them.
#pragma once
#include <memory>
#include <net/counters.hpp>
#include <net/hooks.hpp>
#include <net/interface.hpp>
#include <net/routes.hpp>
#include <net/stack.hpp>
#include <net/tcp.hpp>
#include <net/udp.hpp>
#include <vector>

#include "ip4/icmp4.hpp"
#include "ip4/ip4.hpp"
#include "ip6/icmp6.hpp"
#include "ip6/ip6.hpp"
#include "link/link.hpp"
#include "tcp/tcp_layer.hpp"
#include "time.hpp"
#include "udp/udp_layer.hpp"

namespace net {

struct StackParts {
  StackParts(Stack& stack, Clock& clock, const StackConfig& config);

  Link& link(InterfaceId id) { return *interfaces[id]->link_; }
  const Link& link(InterfaceId id) const { return *interfaces[id]->link_; }
  std::size_t link_count() const { return interfaces.size(); }
  // An interface's transmit queue has room again: every protocol's
  // blocked senders resume.
  void transmit_ready();
  // The service's handlers, run once the stack is done with what caused
  // them: after each received frame, after the NIC's transmit-ready event
  // and at the end of each step (docs/net/handlers.md).
  void run_handlers();
  // Handlers left for another step (those the last ones made due).
  bool handlers_pending() const;

  Stack& stack;
  StackTime time;
  StackCounters counters;
  Routes routes;
  Routes6 routes6;
  Hooks hooks;
  Ip4 ip4;
  Icmp4 icmp;
  Ip6 ip6;
  Icmp6 icmp6;
  UdpLayer udp_layer;
  Udp udp{udp_layer};
  TcpLayer tcp_layer;
  Tcp tcp{tcp_layer};
  std::vector<std::unique_ptr<Interface>> interfaces;
  bool handlers_running = false;
};

}  // namespace net
