// Multicast groups an interface joins (RFC 1112 §6.4) and broadcast
// reception: what reaches a socket, with which destination, and what is
// never answered with an error (RFC 1122 §3.2.2).
#include <string>

#include "net/link/link.hpp"
#include "stack_fixture.hpp"

namespace keel::test {
namespace {

using ::net::Endpoint;
using ::net::UdpDatagram;

const Ip group{224, 1, 2, 3};
const Ip same_mac_group{224, 129, 2, 3};  // RFC 1112 §6.4: only 23 bits reach the MAC

class MulticastTest : public StackTest {
 protected:
  void SetUp() override {
    StackTest::SetUp();
    socket = *stack.udp().bind(5353);
    socket.on_read([this](const UdpDatagram& d) { destinations.push_back(d.destination); });
  }
  // A datagram from the peer to `dst` in a frame to `mac`.
  void deliver(Ip dst, Mac mac) {
    nic.inject(
        ethernet(mac, peer_mac, 0x0800, ip4(peer_ip, dst, 17, udp(peer_ip, dst, 4000, 5353, {1}))));
  }
  void deliver_to_group(Ip g) { deliver(g, ::net::multicast_mac(g)); }
  ::net::UdpSocket socket;
  std::vector<Endpoint> destinations;
};

TEST_F(MulticastTest, GroupMacAddresses) {
  EXPECT_EQ(::net::multicast_mac(group), (Mac{{0x01, 0x00, 0x5e, 0x01, 0x02, 0x03}}));
  EXPECT_EQ(::net::multicast_mac(same_mac_group), ::net::multicast_mac(group));
  EXPECT_EQ(::net::multicast_mac(Ip{239, 255, 255, 250}),
            (Mac{{0x01, 0x00, 0x5e, 0x7f, 0xff, 0xfa}}));
}

TEST_F(MulticastTest, OnlyJoinedGroupsAreReceived) {
  deliver_to_group(group);
  EXPECT_TRUE(destinations.empty());
  EXPECT_EQ(link_counters().ethernet.drop_not_for_us, 1u);
  iface.join(group);
  EXPECT_TRUE(iface.joined(group));
  deliver_to_group(group);
  EXPECT_EQ(destinations, (std::vector<Endpoint>{{group, 5353}}));
  EXPECT_EQ(link_counters().ethernet.rx_multicast, 1u);
  iface.join(group);  // twice: still one membership
  iface.leave(group);
  EXPECT_FALSE(iface.joined(group));
  deliver_to_group(group);
  EXPECT_EQ(destinations.size(), 1u);
  EXPECT_EQ(link_counters().ethernet.drop_not_for_us, 2u);
}

// A group sharing the joined group's MAC passes Ethernet but not IPv4.
TEST_F(MulticastTest, AnotherGroupOnTheSameMacIsDroppedByIpv4) {
  iface.join(group);
  deliver(same_mac_group, ::net::multicast_mac(group));
  EXPECT_TRUE(destinations.empty());
  EXPECT_EQ(link_counters().ethernet.rx_multicast, 1u);
  EXPECT_EQ(counters().ip4.drop_not_for_us, 1u);
}

TEST_F(MulticastTest, AllHostsIsAlwaysJoinedAndOthersAreNotGroups) {  // RFC 1112 §4
  EXPECT_TRUE(iface.joined(Ip{224, 0, 0, 1}));
  iface.join(Ip{10, 0, 0, 7});  // not a multicast address: ignored
  EXPECT_FALSE(iface.joined(Ip{10, 0, 0, 7}));
  deliver_to_group(Ip{224, 0, 0, 1});
  EXPECT_EQ(destinations, (std::vector<Endpoint>{{Ip{224, 0, 0, 1}, 5353}}));
}

TEST_F(MulticastTest, BroadcastsAreReceived) {
  deliver(Ip::broadcast(), Mac::broadcast());
  deliver(Ip{10, 0, 0, 255}, Mac::broadcast());  // the subnet's directed broadcast
  deliver(Ip{10, 0, 0, 255}, stack_mac);         // the same, unicast on the link
  deliver(Ip{10, 0, 1, 255}, Mac::broadcast());  // another subnet's: not ours
  EXPECT_EQ(destinations,
            (std::vector<Endpoint>{
                {Ip::broadcast(), 5353}, {Ip{10, 0, 0, 255}, 5353}, {Ip{10, 0, 0, 255}, 5353}}));
}

// A socket bound to a group takes only that group's datagrams.
TEST_F(MulticastTest, ASocketBoundToAGroupTakesOnlyIt) {
  iface.join(group);
  iface.join(Ip{224, 1, 2, 4});
  std::vector<Endpoint> got;
  auto member = *stack.udp().bind(Endpoint{group, 5353});
  member.on_read([&](const UdpDatagram& d) { got.push_back(d.destination); });
  deliver_to_group(group);
  deliver_to_group(Ip{224, 1, 2, 4});
  EXPECT_EQ(got, (std::vector<Endpoint>{{group, 5353}}));
  EXPECT_EQ(destinations, (std::vector<Endpoint>{{Ip{224, 1, 2, 4}, 5353}}));
}

// Never an error about a multicast or broadcast: closed ports stay silent.
TEST_F(MulticastTest, NoPortUnreachableAboutGroupsOrBroadcasts) {
  iface.join(group);
  socket.close();
  deliver_to_group(group);
  deliver(Ip::broadcast(), Mac::broadcast());
  deliver(Ip{10, 0, 0, 255}, stack_mac);
  EXPECT_EQ(counters().udp.drop_no_port, 3u);
  EXPECT_TRUE(nic.transmitted.empty());
}

// Sending to a group: its Ethernet group address, no ARP.
TEST_F(MulticastTest, SendingToAGroupUsesItsMac) {
  ASSERT_EQ(socket.send_to({group, 5353}, "x", 1), ::net::Status::ok);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(sent_ethernet(f),
            (::net::wire::EthernetRepr{::net::multicast_mac(group), stack_mac, 0x0800}));
  EXPECT_EQ(sent_ip(f).dst, group);
  EXPECT_EQ(sent_ip(f).src, stack_ip);
}

}  // namespace
}  // namespace keel::test
