// StackTest with IPv6: fd00::2/64 on the interface (beside 10.0.0.2/24),
// and the peer fd00::1 in the neighbour cache (its solicitation, with its
// MAC, already answered).
#pragma once
#include "frames6.hpp"
#include "net/ip6/ip6.hpp"
#include "stack_fixture.hpp"

namespace keel::test {

class Ip6StackTest : public StackTest {
 protected:
  void SetUp() override {
    StackTest::SetUp();
    iface.configure6(stack_ip6, 64);
    advance(std::chrono::seconds(1));  // duplicate address detection: nobody objects
    inject6(ns(peer_ip6, ::net::ip6addr::solicited_node(stack_ip6), stack_ip6, &peer_mac),
            ::net::ip6addr::multicast_mac(::net::ip6addr::solicited_node(stack_ip6)));
    nic.transmitted.clear();
  }

  void inject6(const Bytes& packet, Mac dst = stack_mac) { nic.inject(ip6_frame(packet, dst)); }
  const ::net::Ip6Counters& ip6_counters() const { return counters().ip6; }
  const ::net::Icmp6Counters& icmp6_counters() const { return counters().icmp6; }

  // Sends "a" to dst:9 from an ephemeral port.
  ::net::Status send6(const Ip6& dst, uint16_t port = 9) {
    if (!sender.is_open()) sender = *stack.udp().bind(0);
    return sender.send_to({dst, port}, "a", 1);
  }
  // An echo request from the peer to `dst` carrying `data`.
  static Bytes echo6(const Ip6& dst, uint16_t id = 7, uint16_t seq = 1,
                     const Bytes& data = {1, 2}) {
    return icmp6(peer_ip6, dst, 128, 0, uint32_t(id) << 16 | seq, data);
  }
};

}  // namespace keel::test
