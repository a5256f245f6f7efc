// The routing table: longest prefix match, then the lowest metric; the
// routes configuring an interface adds and removes; and which interface
// and source address the stack's own datagrams take.
#include <net/routes.hpp>
#include <ostream>

#include "router_fixture.hpp"

namespace keel::test {
namespace {

using ::net::Route;
using ::net::Routes;
using ::net::Status;

Route route(Ip destination, uint8_t prefix_len, ::net::InterfaceId interface, Ip gateway = {},
            uint32_t metric = 0, Ip source = {}) {
  return {destination, prefix_len, gateway, interface, metric, source};
}

class RoutesTest : public ::testing::Test {
 protected:
  RoutesTest() { routes.set_interface_count(3); }
  ::net::InterfaceId via(Ip destination) const {
    auto r = routes.lookup(destination);
    return r ? r->interface : ::net::no_interface;
  }
  Routes routes;
};

TEST_F(RoutesTest, LongestPrefixWins) {
  ASSERT_EQ(routes.add(route(Ip{}, 0, 0, Ip{10, 0, 0, 254})), Status::ok);
  ASSERT_EQ(routes.add(route(Ip{10, 0, 0, 0}, 8, 0)), Status::ok);
  ASSERT_EQ(routes.add(route(Ip{10, 1, 2, 0}, 24, 2)), Status::ok);
  ASSERT_EQ(routes.add(route(Ip{10, 1, 0, 0}, 16, 1)), Status::ok);
  ASSERT_EQ(routes.add(route(Ip{10, 1, 2, 3}, 32, 0)), Status::ok);
  EXPECT_EQ(via(Ip{10, 1, 2, 3}), 0);  // the host route
  EXPECT_EQ(via(Ip{10, 1, 2, 4}), 2);
  EXPECT_EQ(via(Ip{10, 1, 3, 4}), 1);
  EXPECT_EQ(via(Ip{10, 2, 0, 1}), 0);
  auto fallback = routes.lookup(Ip{8, 8, 8, 8});
  ASSERT_TRUE(fallback);
  EXPECT_EQ(*fallback, route(Ip{}, 0, 0, Ip{10, 0, 0, 254}));
  // Most specific first, whatever the order they were added in.
  std::vector<uint8_t> order;
  for (const Route& r : routes.all()) order.push_back(r.prefix_len);
  EXPECT_EQ(order, (std::vector<uint8_t>{32, 24, 16, 8, 0}));
}

TEST_F(RoutesTest, NoDefaultRouteNoAnswer) {
  routes.add(route(Ip{10, 0, 0, 0}, 8, 0));
  EXPECT_FALSE(routes.lookup(Ip{11, 0, 0, 1}));
  EXPECT_FALSE(Routes().lookup(Ip{10, 0, 0, 1}));
}

TEST_F(RoutesTest, TheLowestMetricWinsBetweenEqualPrefixes) {
  routes.add(route(Ip{}, 0, 0, Ip{10, 0, 0, 254}, 100));
  routes.add(route(Ip{}, 0, 1, Ip{10, 1, 0, 254}, 101));
  EXPECT_EQ(via(Ip{8, 8, 8, 8}), 0);
  routes.add(route(Ip{}, 0, 2, Ip{10, 2, 0, 254}, 50));
  EXPECT_EQ(via(Ip{8, 8, 8, 8}), 2);
  // A longer prefix beats any metric.
  routes.add(route(Ip{8, 0, 0, 0}, 8, 1, Ip{10, 1, 0, 254}, 1000));
  EXPECT_EQ(via(Ip{8, 8, 8, 8}), 1);
  EXPECT_TRUE(routes.remove(Ip{8, 0, 0, 0}, 8, 1));
  EXPECT_TRUE(routes.remove(Ip{}, 0, 2));
  EXPECT_EQ(via(Ip{8, 8, 8, 8}), 0);
  EXPECT_FALSE(routes.remove(Ip{}, 0, 2));  // gone already
}

TEST_F(RoutesTest, AddingTheSameRouteReplacesIt) {
  routes.add(route(Ip{10, 2, 0, 0}, 16, 0, Ip{10, 0, 0, 254}, 10));
  routes.add(route(Ip{10, 2, 0, 0}, 16, 0, Ip{10, 0, 0, 254}, 5));
  ASSERT_EQ(routes.all().size(), 1u);
  EXPECT_EQ(routes.all()[0].metric, 5u);
  // Another gateway or interface is another route.
  routes.add(route(Ip{10, 2, 0, 0}, 16, 0, Ip{10, 0, 0, 253}, 7));
  routes.add(route(Ip{10, 2, 0, 0}, 16, 1, Ip{10, 1, 0, 254}, 1));
  EXPECT_EQ(routes.all().size(), 3u);
  EXPECT_EQ(via(Ip{10, 2, 3, 4}), 1);
}

TEST_F(RoutesTest, HostBitsAreClearedAndBadRoutesRefused) {
  ASSERT_EQ(routes.add(route(Ip{10, 1, 2, 3}, 16, 0)), Status::ok);
  EXPECT_EQ(routes.all()[0].destination, (Ip{10, 1, 0, 0}));
  EXPECT_TRUE(routes.all()[0].contains(Ip{10, 1, 255, 255}));
  EXPECT_FALSE(routes.all()[0].contains(Ip{10, 2, 0, 0}));
  ASSERT_EQ(routes.add(route(Ip{1, 2, 3, 4}, 0, 1)), Status::ok);  // a default route
  EXPECT_EQ(routes.all().back().destination, Ip{});
  EXPECT_EQ(routes.add(route(Ip{10, 0, 0, 0}, 33, 0)), Status::invalid);
  EXPECT_EQ(routes.add(route(Ip{10, 0, 0, 0}, 8, 3)), Status::invalid);  // no interface 3
  EXPECT_EQ(routes.add(route(Ip{10, 0, 0, 0}, 8, ::net::no_interface)), Status::invalid);
  EXPECT_EQ(routes.all().size(), 2u);
}

TEST_F(RoutesTest, RemovingAnInterfacesRoutes) {
  routes.add(route(Ip{10, 0, 0, 0}, 24, 0));
  routes.add(route(Ip{10, 1, 0, 0}, 24, 1));
  routes.add(route(Ip{}, 0, 1, Ip{10, 1, 0, 254}));
  routes.remove_interface(1);
  ASSERT_EQ(routes.all().size(), 1u);
  EXPECT_EQ(routes.all()[0].interface, 0);
}

TEST_F(RoutesTest, RoutesPrintAsText) {
  EXPECT_EQ(route(Ip{10, 2, 0, 0}, 16, 0, Ip{10, 0, 0, 254}).to_string(),
            "10.2.0.0/16 via 10.0.0.254 dev 0 metric 0");
  EXPECT_EQ(route(Ip{10, 0, 0, 0}, 24, 1, {}, 3, Ip{10, 0, 0, 2}).to_string(),
            "10.0.0.0/24 dev 1 metric 3 src 10.0.0.2");
}

// The stack's table follows its interfaces: connected subnets (metric 0)
// and a default route per gateway (metric 100 + the interface's id).
class StackRoutesTest : public RouterTest {
 protected:
  void SetUp() override {
    RouterTest::SetUp();
    if0.configure(stack_ip, ::net::ip4::netmask_of(24), Ip{10, 0, 0, 254});
    if1.configure(router_ip1, ::net::ip4::netmask_of(16), Ip{10, 1, 0, 254});
    nic0.transmitted.clear();
    nic1.transmitted.clear();
    sender = *stack.udp().bind(5000);
  }
  // Where a datagram to `dst` leaves: the interface, and the next hop (the
  // address ARP asks for, or the datagram's destination when resolved) with
  // the source (of the ARP request, or of the datagram).
  struct Exit {
    int interface = -1;
    Ip next_hop, source;
    friend bool operator==(const Exit&, const Exit&) = default;
    friend std::ostream& operator<<(std::ostream& os, const Exit& e) {
      return os << "net" << e.interface << " next hop " << e.next_hop.to_string() << " source "
                << e.source.to_string();
    }
  };
  Exit send(Ip dst) {
    nic0.transmitted.clear();
    nic1.transmitted.clear();
    EXPECT_EQ(sender.send_to({dst, 53}, "q", 1), Status::ok);
    Exit e;
    for (int i = 0; i < 2; ++i) {
      auto& nic = i == 0 ? nic0 : nic1;
      if (nic.transmitted.empty()) continue;
      EXPECT_EQ(e.interface, -1) << "sent on both interfaces";
      e.interface = i;
      const Bytes& f = nic.transmitted.front();
      if (::net::wire::load16(&f[12]) == ::net::wire::ethertype_arp) {
        e.next_hop = sent_arp(f).target_ip;
        e.source = sent_arp(f).sender_ip;
      } else {
        e.next_hop = sent_ip(f).dst;  // a neighbour already resolved
        e.source = sent_ip(f).src;
      }
    }
    return e;
  }
  ::net::UdpSocket sender;
};

TEST_F(StackRoutesTest, ConfiguringInterfacesAddsTheirRoutes) {
  EXPECT_EQ(stack.routes().all(),
            (std::vector<Route>{route(Ip{10, 0, 0, 0}, 24, 0, {}, 0, stack_ip),
                                route(Ip{10, 1, 0, 0}, 16, 1, {}, 0, router_ip1),
                                route(Ip{}, 0, 0, Ip{10, 0, 0, 254}, 100, stack_ip),
                                route(Ip{}, 0, 1, Ip{10, 1, 0, 254}, 101, router_ip1)}));
}

TEST_F(StackRoutesTest, ConnectedSubnetsOnSeveralInterfaces) {
  EXPECT_EQ(send(Ip{10, 0, 0, 9}), (Exit{0, Ip{10, 0, 0, 9}, stack_ip}));
  EXPECT_EQ(send(Ip{10, 1, 7, 9}), (Exit{1, Ip{10, 1, 7, 9}, router_ip1}));
  EXPECT_EQ(send(peer1_ip), (Exit{1, peer1_ip, router_ip1}));
  EXPECT_EQ(send(Ip{8, 8, 8, 8}), (Exit{0, Ip{10, 0, 0, 254}, stack_ip}));  // metric 100 < 101
}

TEST_F(StackRoutesTest, AServicesRoutesAndMetrics) {
  ASSERT_EQ(stack.routes().add(route(Ip{192, 168, 0, 0}, 16, 1, Ip{10, 1, 0, 253})), Status::ok);
  EXPECT_EQ(send(Ip{192, 168, 4, 4}), (Exit{1, Ip{10, 1, 0, 253}, router_ip1}));
  ASSERT_EQ(stack.routes().add(route(Ip{}, 0, 1, Ip{10, 1, 0, 254}, 50)), Status::ok);
  EXPECT_EQ(send(Ip{8, 8, 8, 8}), (Exit{1, Ip{10, 1, 0, 254}, router_ip1}));
  // A route's preferred source is used.
  ASSERT_EQ(stack.routes().add(route(Ip{172, 16, 0, 0}, 12, 0, Ip{10, 0, 0, 254}, 0, router_ip1)),
            Status::ok);
  EXPECT_EQ(send(Ip{172, 16, 1, 1}),
            (Exit{0, Ip{10, 0, 0, 254}, stack_ip}));  // (ARP asks from net0's)
  nic0.transmitted.clear();
  Mac gateway{{0x02, 0, 0, 0, 0, 0xfe}};
  nic0.inject(ethernet(stack_mac, gateway, 0x0806,
                       arp(2, gateway, Ip{10, 0, 0, 254}, stack_mac, stack_ip)));
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic0.transmitted[0]).src, router_ip1);
}

TEST_F(StackRoutesTest, DeconfiguringAnInterfaceRemovesItsRoutes) {
  if1.deconfigure();
  EXPECT_FALSE(if1.is_configured());
  for (const Route& r : stack.routes().all()) EXPECT_NE(r.interface, 1) << r.to_string();
  // Its subnet is reached through the other interface's default route now.
  EXPECT_EQ(send(Ip{10, 1, 7, 9}), (Exit{0, Ip{10, 0, 0, 254}, stack_ip}));
  if0.deconfigure();
  EXPECT_TRUE(stack.routes().all().empty());
  EXPECT_EQ(sender.send_to({Ip{10, 1, 7, 9}, 53}, "q", 1), Status::not_configured);
}

// Configuring and deconfiguring an interface adds and drops the routes
// configuring added, not those a service (or the config's route= lines)
// added through it: a DHCP lease arriving after boot must not wipe them.
TEST_F(StackRoutesTest, ReconfiguringKeepsTheRoutesAServiceAdded) {
  Route service = route(Ip{192, 168, 0, 0}, 16, 1, Ip{10, 1, 0, 253});
  ASSERT_EQ(stack.routes().add(service), Status::ok);
  if1.configure(Ip{10, 1, 0, 3}, ::net::ip4::netmask_of(16), Ip{10, 1, 0, 254});
  if1.deconfigure();
  if1.configure(Ip{10, 1, 0, 4}, ::net::ip4::netmask_of(16));
  EXPECT_EQ(stack.routes().all(),
            (std::vector<Route>{route(Ip{10, 0, 0, 0}, 24, 0, {}, 0, stack_ip), service,
                                route(Ip{10, 1, 0, 0}, 16, 1, {}, 0, Ip{10, 1, 0, 4}),
                                route(Ip{}, 0, 0, Ip{10, 0, 0, 254}, 100, stack_ip)}));
  EXPECT_EQ(send(Ip{192, 168, 1, 1}), (Exit{1, Ip{10, 1, 0, 253}, Ip{10, 1, 0, 4}}));
}

TEST_F(StackRoutesTest, ANewAddressReplacesTheOldSubnet) {
  if1.configure(Ip{10, 5, 0, 2}, ::net::ip4::netmask_of(24));
  EXPECT_EQ(stack.routes().all(),
            (std::vector<Route>{route(Ip{10, 0, 0, 0}, 24, 0, {}, 0, stack_ip),
                                route(Ip{10, 5, 0, 0}, 24, 1, {}, 0, Ip{10, 5, 0, 2}),
                                route(Ip{}, 0, 0, Ip{10, 0, 0, 254}, 100, stack_ip)}));
  EXPECT_EQ(send(Ip{10, 5, 0, 7}), (Exit{1, Ip{10, 5, 0, 7}, Ip{10, 5, 0, 2}}));
  EXPECT_EQ(send(Ip{10, 1, 7, 9}), (Exit{0, Ip{10, 0, 0, 254}, stack_ip}));
}

}  // namespace
}  // namespace keel::test

namespace keel::test {
namespace {

// The IPv6 table is the same template (decision 0134): the longest of
// prefixes that do not end on a byte boundary, host bits cleared, /128 the
// longest, /129 refused.
TEST(Routes6Test, LongestPrefixOverAllBitsOfTheAddress) {
  ::net::Routes6 routes;
  routes.set_interface_count(3);
  auto add = [&](const char* prefix, uint8_t len, ::net::InterfaceId dev) {
    ::net::Route6 r;
    r.destination = ::net::Address::parse(prefix)->ip6();
    r.prefix_len = len;
    r.interface = dev;
    return routes.add(r);
  };
  auto via = [&](const char* a) {
    auto r = routes.lookup(::net::Address::parse(a)->ip6());
    return r ? r->interface : ::net::no_interface;
  };
  EXPECT_EQ(via("2001:db8::1"), ::net::no_interface);
  ASSERT_EQ(add("::", 0, 0), Status::ok);
  ASSERT_EQ(add("2001:db8:ffff::", 33, 1), Status::ok);  // host bits: 2001:db8:8000::/33
  ASSERT_EQ(add("2001:db8:1:2::", 63, 2), Status::ok);
  ASSERT_EQ(add("2001:db8:1:2::5", 128, 0), Status::ok);
  EXPECT_EQ(add("2001:db8::", 129, 0), Status::invalid);
  EXPECT_EQ(add("2001:db8::", 32, 3), Status::invalid);  // no interface 3
  EXPECT_EQ(via("2001:db8:1:2::5"), 0);
  EXPECT_EQ(via("2001:db8:1:3::5"), 2);  // bit 64 is past /63
  EXPECT_EQ(via("2001:db8:1:4::5"), 0);  // outside the /63: the default
  EXPECT_EQ(via("2001:db8:8000::1"), 1);
  EXPECT_EQ(via("2001:db8:7fff::1"), 0);
  EXPECT_EQ(routes.all()[2].to_string(), "2001:db8:8000::/33 dev 1 metric 0");
  EXPECT_TRUE(routes.remove(::net::Address::parse("2001:db8:8000::1")->ip6(), 33, 1));
  EXPECT_EQ(via("2001:db8:8000::1"), 0);
}

}  // namespace
}  // namespace keel::test
