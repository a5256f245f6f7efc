// One socket table for every interface: a datagram reaches its socket
// whichever interface it came in on, the handler learns the destination
// and the interface, and sockets bound to an address or an interface get
// only theirs (the most specific socket wins).
#include <string>

#include "router_fixture.hpp"

namespace keel::test {
namespace {

using ::net::Endpoint;
using ::net::InterfaceId;
using ::net::Status;
using ::net::UdpDatagram;
using ::net::UdpSocket;

struct Arrival {
  std::string socket;
  Endpoint source, destination;
  InterfaceId interface;
  friend bool operator==(const Arrival&, const Arrival&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Arrival& a) {
    return os << a.socket << ": " << a.source.to_string() << " > " << a.destination.to_string()
              << " on " << a.interface;
  }
};

class UdpInterfacesTest : public RouterTest {
 protected:
  UdpSocket bind(std::string name, Endpoint local, InterfaceId interface = ::net::no_interface) {
    auto s = stack.udp().bind(local, interface);
    EXPECT_TRUE(s) << name << ": " << ::net::to_string(s.status);
    s->on_read([this, name](const UdpDatagram& d) {
      arrivals.push_back({name, d.source, d.destination, d.interface});
    });
    return *s;
  }
  // A datagram from peer0 (on net0) or peer1 (on net1) to dst:port; the
  // last arrival it caused, or none.
  std::optional<Arrival> on0(Ip dst, uint16_t port) {
    return arrive([&] { from_peer0(ip4(peer_ip, dst, 17, udp(peer_ip, dst, 4000, port, {1}))); });
  }
  std::optional<Arrival> on1(Ip dst, uint16_t port) {
    return arrive([&] { from_peer1(ip4(peer1_ip, dst, 17, udp(peer1_ip, dst, 4001, port, {1}))); });
  }
  template <class F>
  std::optional<Arrival> arrive(F inject) {
    arrivals.clear();
    inject();
    EXPECT_LE(arrivals.size(), 1u);
    if (arrivals.empty()) return std::nullopt;
    return arrivals.back();
  }
  std::vector<Arrival> arrivals;
};

TEST_F(UdpInterfacesTest, ADatagramArrivesWhicheverInterfaceItCameInOn) {
  bind("any", {Ip{}, 53});
  EXPECT_EQ(on0(stack_ip, 53), (Arrival{"any", {peer_ip, 4000}, {stack_ip, 53}, 0}));
  EXPECT_EQ(on1(router_ip1, 53), (Arrival{"any", {peer1_ip, 4001}, {router_ip1, 53}, 1}));
  // The weak host model: net1's address reached through net0.
  EXPECT_EQ(on0(router_ip1, 53), (Arrival{"any", {peer_ip, 4000}, {router_ip1, 53}, 0}));
  EXPECT_EQ(counters().udp.rx, 3u);
}

TEST_F(UdpInterfacesTest, TheMostSpecificSocketWins) {
  bind("any", {Ip{}, 53});
  bind("addr1", {router_ip1, 53});
  bind("any@0", {Ip{}, 53}, 0);
  bind("addr0@0", {stack_ip, 53}, 0);
  EXPECT_EQ(on0(stack_ip, 53)->socket, "addr0@0");  // address and interface
  EXPECT_EQ(on1(router_ip1, 53)->socket, "addr1");  // address
  EXPECT_EQ(on0(router_ip1, 53)->socket, "addr1");  // address beats interface
  EXPECT_EQ(on1(stack_ip, 53)->socket, "any");      // neither
  // Broadcasts: nobody is bound to them, so the any-address sockets take them.
  EXPECT_EQ(on0(Ip{10, 0, 0, 255}, 53)->socket, "any@0");
  EXPECT_EQ(on1(Ip{10, 1, 0, 255}, 53)->socket, "any");
}

TEST_F(UdpInterfacesTest, ASocketBoundToAnInterfaceHearsOnlyThatInterface) {
  bind("only1", {Ip{}, 67}, 1);
  EXPECT_FALSE(on0(stack_ip, 67));
  EXPECT_EQ(counters().udp.drop_no_port, 1u);
  ASSERT_EQ(nic0.transmitted.size(), 1u);  // port unreachable, as for any closed port
  EXPECT_EQ(sent_icmp(nic0.pop()).code, ::net::wire::icmp4::port_unreachable);
  EXPECT_EQ(on1(router_ip1, 67)->socket, "only1");
  EXPECT_EQ(on0(router_ip1, 67), std::nullopt);  // its address, but not its interface
}

TEST_F(UdpInterfacesTest, ASocketBoundToAnAddressHearsOnlyThatAddress) {
  bind("addr1", {router_ip1, 9});
  EXPECT_FALSE(on0(stack_ip, 9));
  EXPECT_FALSE(on1(Ip{10, 1, 0, 255}, 9));  // nor the subnet's broadcast
  EXPECT_EQ(on1(router_ip1, 9)->socket, "addr1");
}

// A socket bound to an interface sends through it (SO_BINDTODEVICE), even
// where the routing table would choose another.
TEST_F(UdpInterfacesTest, ASocketBoundToAnInterfaceSendsThroughIt) {
  UdpSocket s = bind("via1", {Ip{}, 5000}, 1);
  EXPECT_EQ(s.interface(), 1);
  ASSERT_EQ(s.send_to({Ip{10, 0, 0, 9}, 53}, "q", 1), Status::ok);
  EXPECT_TRUE(nic0.transmitted.empty());
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  auto request = sent_arp(nic1.pop());  // asked for on net1's link
  EXPECT_EQ(request.target_ip, (Ip{10, 0, 0, 9}));
  EXPECT_EQ(request.sender_ip, router_ip1);
}

// A socket bound to one address sends from it, whichever interface the
// route takes.
TEST_F(UdpInterfacesTest, ASocketBoundToAnAddressSendsFromIt) {
  UdpSocket s = bind("addr1", {router_ip1, 5000});
  ASSERT_EQ(s.send_to({peer_ip, 53}, "q", 1), Status::ok);
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic0.transmitted[0]).src, router_ip1);
  EXPECT_EQ(sent_udp(nic0.transmitted[0]), (::net::wire::UdpRepr{5000, 53, 1}));
}

// An echo server on the any address answers each peer on the interface
// the question came in on, from that interface's address.
TEST_F(UdpInterfacesTest, AnEchoAnswersOnTheInterfaceTheQuestionCameIn) {
  auto echo = *stack.udp().bind(7);
  echo.on_read([echo](const UdpDatagram& d) mutable { echo.send_to(d.source, d.payload); });
  from_peer0(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {'a'})));
  from_peer1(ip4(peer1_ip, router_ip1, 17, udp(peer1_ip, router_ip1, 4001, 7, {'b'})));
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic0.transmitted[0]).src, stack_ip);
  EXPECT_EQ(sent_udp(nic0.transmitted[0]), (::net::wire::UdpRepr{7, 4000, 1}));
  EXPECT_EQ(sent_ip(nic1.transmitted[0]).src, router_ip1);
  EXPECT_EQ(sent_udp(nic1.transmitted[0]), (::net::wire::UdpRepr{7, 4001, 1}));
}

// Reached through net0 at net1's address (the weak host model), a reply
// from the socket's address would come from net0's: send_to() can answer
// from the address the request came to.
TEST_F(UdpInterfacesTest, AReplyMayComeFromTheAddressTheRequestCameTo) {
  auto echo = *stack.udp().bind(7);
  std::vector<Status> sent;
  echo.on_read([&, echo](const UdpDatagram& d) mutable {
    sent.push_back(echo.send_to(d.source, d.payload, d.destination.address));
  });
  from_peer0(ip4(peer_ip, router_ip1, 17, udp(peer_ip, router_ip1, 4000, 7, {'a'})));
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic0.transmitted[0]).src, router_ip1);
  EXPECT_EQ(sent_ip(nic0.transmitted[0]).dst, peer_ip);
  // A broadcast destination names none of our addresses: the route's is used.
  nic0.transmitted.clear();
  from_peer0(ip4(peer_ip, Ip{10, 0, 0, 255}, 17, udp(peer_ip, Ip{10, 0, 0, 255}, 4000, 7, {'b'})));
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic0.transmitted[0]).src, stack_ip);
  EXPECT_EQ(sent, (std::vector<Status>{Status::ok, Status::ok}));
  // Not one of ours: refused.
  EXPECT_EQ(echo.send_to({peer_ip, 9}, "x", 1, Ip{10, 0, 0, 99}), Status::invalid);
}

}  // namespace
}  // namespace keel::test
