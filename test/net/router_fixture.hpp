// A host stack with two interfaces on in-memory NICs, on a clock the test
// moves:
//   net0  10.0.0.2/24  (stack_mac)   peer0 10.0.0.1 (peer_mac)
//   net1  10.1.0.2/24  (router_mac1) peer1 10.1.0.1 (peer1_mac)
// No gateways; each peer is already in its interface's ARP cache;
// forwarding is off (as by default).
#pragma once
#include <gtest/gtest.h>

#include <net/stack.hpp>

#include "frames.hpp"
#include "manual_clock.hpp"
#include "memory_nic.hpp"
#include "stack_fixture.hpp"

namespace keel::test {

inline const Mac router_mac1{{0x02, 0, 0, 0, 1, 1}};
inline const Mac peer1_mac{{0x02, 0, 0, 0, 1, 2}};
inline const Ip router_ip1{10, 1, 0, 2};
inline const Ip peer1_ip{10, 1, 0, 1};

class RouterTest : public ::testing::Test {
 protected:
  explicit RouterTest(uint16_t mtu1 = 1500)
      : nic0(stack_mac),
        nic1(router_mac1, mtu1),
        stack(clock, test_stack_config()),
        if0(stack.add_interface(nic0)),
        if1(stack.add_interface(nic1)) {
    // Each frame delivered is followed by the event loop's step (handlers).
    nic0.set_after_receive([this] { clock.advance(std::chrono::nanoseconds(0)); });
    nic1.set_after_receive([this] { clock.advance(std::chrono::nanoseconds(0)); });
  }

  void SetUp() override {
    if0.configure(stack_ip, ::net::ip4::netmask_of(24));
    if1.configure(router_ip1, ::net::ip4::netmask_of(24));
    nic0.inject(
        ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
    nic1.inject(ethernet(Mac::broadcast(), peer1_mac, 0x0806,
                         arp(1, peer1_mac, peer1_ip, Mac{}, router_ip1)));
    nic0.transmitted.clear();
    nic1.transmitted.clear();
  }

  // An IPv4 packet as received from peer0 on net0 / peer1 on net1.
  void from_peer0(const Bytes& ip) { nic0.inject(ip_frame(ip, stack_mac, peer_mac)); }
  void from_peer1(const Bytes& ip) { nic1.inject(ip_frame(ip, router_mac1, peer1_mac)); }
  const ::net::StackCounters& counters() const { return stack.counters(); }

  ManualClock clock;
  ::net::MemoryNic nic0, nic1;
  ::net::Stack stack;
  ::net::Interface& if0;
  ::net::Interface& if1;
};

}  // namespace keel::test
