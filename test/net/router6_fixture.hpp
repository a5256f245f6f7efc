// RouterTest with IPv6 on both interfaces:
//   net0  fd00::2/64  peer0 fd00::1 (peer_mac), fe80::2 (peer_mac)
//   net1  fd01::2/64  peer1 fd01::1 (peer1_mac)
// Each peer already in its interface's neighbour cache; MLD reports taken
// out of what was sent; forwarding off (as by default).
#pragma once
#include "frames6.hpp"
#include "router_fixture.hpp"

namespace keel::test {

inline const Ip6 router_ip6_1 = ip6_of("fd01::2");
inline const Ip6 peer1_ip6 = ip6_of("fd01::1");

class Router6Test : public RouterTest {
 protected:
  explicit Router6Test(uint16_t mtu1 = 1500) : RouterTest(mtu1) {}

  void SetUp() override {
    RouterTest::SetUp();
    if0.configure6(stack_ip6, 64);
    if1.configure6(router_ip6_1, 64);
    clock.advance(std::chrono::seconds(1));  // duplicate address detection: nobody objects
    learn(nic0, peer_ip6, stack_ip6, peer_mac);
    learn(nic0, peer_link_local, stack_link_local, peer_mac);
    learn(nic1, peer1_ip6, router_ip6_1, peer1_mac);
    clear();
  }

  // A solicitation from `peer` for `ours`, so `peer` is in the cache (STALE).
  static void learn(::net::MemoryNic& nic, const Ip6& peer, const Ip6& ours, Mac peer_mac) {
    Ip6 group = ::net::ip6addr::solicited_node(ours);
    nic.inject(ethernet(::net::ip6addr::multicast_mac(group), peer_mac, ::net::wire::ethertype_ip6,
                        ns(peer, group, ours, &peer_mac)));
  }
  void clear() {
    nic0.transmitted.clear();
    nic1.transmitted.clear();
  }
  // An IPv6 packet as received from peer0 on net0 / peer1 on net1.
  void from_peer0_6(const Bytes& ip) {
    nic0.inject(ethernet(stack_mac, peer_mac, ::net::wire::ethertype_ip6, ip));
  }
  void from_peer1_6(const Bytes& ip) {
    nic1.inject(ethernet(router_mac1, peer1_mac, ::net::wire::ethertype_ip6, ip));
  }
  // What a NIC sent, MLD reports left out.
  static std::vector<Bytes> sent(::net::MemoryNic& nic) {
    std::vector<Bytes> frames;
    while (!nic.transmitted.empty()) frames.push_back(nic.pop());
    drop_mld(frames);
    return frames;
  }
  void add_route6(const char* prefix, uint8_t len, const char* gateway, ::net::InterfaceId dev) {
    ::net::Route6 r;
    r.destination = ip6_of(prefix);
    r.prefix_len = len;
    r.gateway = gateway ? ip6_of(gateway) : Ip6{};
    r.interface = dev;
    ASSERT_EQ(stack.routes6().add(r), ::net::Status::ok);
  }
  const ::net::Ip6Counters& counters6() const { return counters().ip6; }
};

}  // namespace keel::test
