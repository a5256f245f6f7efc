// A host stack with one interface on an in-memory NIC, configured as
// 10.0.0.2/24 (gateway 10.0.0.254), a peer (10.0.0.1) already in its ARP
// cache, on a clock the test moves.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <net/stack.hpp>
#include <string_view>

#include "frames.hpp"
#include "manual_clock.hpp"
#include "memory_nic.hpp"

namespace keel::test {

inline ::net::StackConfig test_stack_config() {
  ::net::StackConfig config;
  config.total_memory = std::size_t(64) << 20;  // what the defaults scale with
  return config;
}

class StackTest : public ::testing::Test {
 protected:
  StackTest() : nic(stack_mac), stack(clock, test_stack_config()), iface(stack.add_interface(nic)) {
    // Each frame delivered is followed by the event loop's step, where the
    // stack runs the service's handlers (docs/net/handlers.md).
    nic.set_after_receive([this] { clock.advance(std::chrono::nanoseconds(0)); });
  }

  void SetUp() override {
    iface.configure(stack_ip, ::net::ip4::netmask_of(24), Ip{10, 0, 0, 254});
    // The peer asks for us: the stack caches it and answers.
    nic.inject(
        ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
    nic.transmitted.clear();
  }

  void inject_ip(const Bytes& ip_packet) { nic.inject(ip_frame(ip_packet)); }
  // Sends `data` to dst:port from an ephemeral port of the stack's.
  ::net::Status send(Ip dst, uint16_t port, std::string_view data = "a") {
    if (!sender.is_open()) sender = *stack.udp().bind(0);
    return sender.send_to({dst, port}, data.data(), data.size());
  }
  void advance(std::chrono::nanoseconds d) { clock.advance(d); }
  const ::net::StackCounters& counters() const { return stack.counters(); }
  const ::net::InterfaceCounters& link_counters() const { return iface.counters(); }

  // The IPv4 packet inside transmitted frame `f` (after the Ethernet header).
  static Bytes ip_of(const Bytes& f) { return Bytes(f.begin() + 14, f.end()); }
  static uint16_t ethertype(const Bytes& f) { return ::net::wire::load16(&f[12]); }

  ManualClock clock;
  ::net::MemoryNic nic;
  ::net::Stack stack;
  ::net::Interface& iface;
  ::net::UdpSocket sender;
};

}  // namespace keel::test
