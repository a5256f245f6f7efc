// UDP over IPv6 through the same sockets as IPv4 (RFC 8200 §8.1), and the
// IPv6 half of the interface configuration (ip=10.0.0.2/24,fd00::2/64).
#include <net/config.hpp>

#include "ip6_fixture.hpp"

namespace keel::test {
namespace {

using ::net::Endpoint;
using ::net::Status;
using ::net::wire::Ip6Repr;
using ::net::wire::UdpRepr;

using Udp6Test = Ip6StackTest;

UdpRepr sent_udp6(const Bytes& f) {
  auto ip = sent_ip6(f);
  Bytes p = sent_payload6(f);
  ::net::wire::UdpView<const uint8_t> v(p.data(), p.size());
  EXPECT_EQ(v.check(ip.src, ip.dst), ::net::wire::UdpError::none);
  return UdpRepr::parse(v);
}

TEST_F(Udp6Test, SocketBoundToAnyTakesIpv6AndAnswersOverIt) {
  auto socket = *stack.udp().bind(7);  // 0.0.0.0: every address, both families
  std::vector<::net::UdpDatagram> got;
  socket.on_read([&got, socket](const ::net::UdpDatagram& d) mutable {
    got.push_back(d);
    EXPECT_EQ(socket.send_to(d.source, d.payload, d.destination.address), Status::ok);
  });
  inject6(ip6(peer_ip6, stack_ip6, 17, udp6(peer_ip6, stack_ip6, 5000, 7, pattern(30))));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].source, (Endpoint{peer_ip6, 5000}));
  EXPECT_EQ(got[0].destination, (Endpoint{stack_ip6, 7}));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(sent_ip6(f), (Ip6Repr{stack_ip6, peer_ip6, 17, 64, 38}));
  EXPECT_EQ(sent_udp6(f), (UdpRepr{7, 5000, 30}));
  EXPECT_EQ(sent_payload6(f), udp6(stack_ip6, peer_ip6, 7, 5000, pattern(30)));
}

TEST_F(Udp6Test, LinkLocalPeersAreAnsweredFromOurLinkLocalAddress) {
  auto socket = *stack.udp().bind(Endpoint{Ip6{}, 7});
  socket.on_read([socket](const ::net::UdpDatagram& d) mutable {
    socket.send_to(d.source, d.payload, d.destination.address);
  });
  Ip6 peer_ll = ip6_of("fe80::2");
  inject6(ns(peer_ll, stack_link_local, stack_link_local, &peer_mac));
  nic.transmitted.clear();
  inject6(ip6(peer_ll, stack_link_local, 17, udp6(peer_ll, stack_link_local, 6000, 7, {1})));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip6(nic.pop()), (Ip6Repr{stack_link_local, peer_ll, 17, 64, 9}));
}

TEST_F(Udp6Test, BadDatagramsAreCountedAndClosedPortsAnswered) {
  auto socket = *stack.udp().bind(Endpoint{stack_ip6, 7});
  socket.on_read([](const ::net::UdpDatagram&) { FAIL(); });
  Bytes zero = udp6(peer_ip6, stack_ip6, 5000, 7, {1, 2});
  zero[6] = zero[7] = 0;  // RFC 8200 §8.1: mandatory over IPv6
  inject6(ip6(peer_ip6, stack_ip6, 17, zero));
  EXPECT_EQ(counters().udp.drop_bad_checksum, 1u);
  Bytes closed = ip6(peer_ip6, stack_ip6, 17, udp6(peer_ip6, stack_ip6, 5000, 9, {1}));
  inject6(closed);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes m = sent_icmp6(nic.pop());
  EXPECT_EQ(m[0], 1);  // destination unreachable, port unreachable (RFC 4443 §3.1)
  EXPECT_EQ(m[1], 4);
  EXPECT_EQ(Bytes(m.begin() + 8, m.end()), closed);
  EXPECT_EQ(counters().udp.drop_no_port, 1u);
}

TEST_F(Udp6Test, BindAndSendCheckTheirArguments) {
  EXPECT_EQ(stack.udp().bind(Endpoint{ip6_of("fd00::9"), 7}).status, Status::invalid);
  EXPECT_TRUE(stack.udp().bind(Endpoint{stack_ip6, 7}));
  EXPECT_EQ(stack.udp().bind(Endpoint{stack_ip6, 7}).status, Status::in_use);
  // 0.0.0.0 and :: are one binding.
  EXPECT_TRUE(stack.udp().bind(8));
  EXPECT_EQ(stack.udp().bind(Endpoint{Ip6{}, 8}).status, Status::in_use);
  auto v4 = *stack.udp().bind(Endpoint{stack_ip, 9});
  EXPECT_EQ(v4.send_to({peer_ip6, 1}, "a", 1), Status::invalid);  // an IPv4 socket
  auto any = *stack.udp().bind(0);
  std::string big(65535 - 8 + 1, 'x');  // past UDP's 16-bit length (no jumbograms)
  EXPECT_EQ(any.send_to({peer_ip6, 1}, big.data(), big.size()), Status::too_big);
  EXPECT_EQ(any.send_to({ip6_of("2001:db8::1"), 1}, "a", 1), Status::no_route);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(Udp6Test, GatewayCarriesWhatIsOffLink) {
  iface.configure6(stack_ip6, 64, peer_ip6);
  EXPECT_EQ(send6(ip6_of("2001:db8::1")), Status::ok);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(sent_ethernet(f).dst, peer_mac);  // the gateway's MAC
  EXPECT_EQ(sent_ip6(f).dst, ip6_of("2001:db8::1"));
}

TEST(Config6, AddressesOfBothFamilies) {
  ::net::Config c;
  ASSERT_EQ(::net::apply_cmdline(
                {"ip=10.0.0.2/24,fd00::2/64", "gw=10.0.0.1,fd00::1", "ip1=fd01::5/48"}, c),
            "");
  EXPECT_EQ(c.interfaces[0].address, (Ip{10, 0, 0, 2}));
  EXPECT_EQ(c.interfaces[0].address6, ip6_of("fd00::2"));
  EXPECT_EQ(c.interfaces[0].prefix6, 64);
  EXPECT_EQ(c.interfaces[0].gateway, (Ip{10, 0, 0, 1}));
  EXPECT_EQ(c.interfaces[0].gateway6, ip6_of("fd00::1"));
  EXPECT_EQ(c.interfaces[1].address6, ip6_of("fd01::5"));
  EXPECT_EQ(c.interfaces[1].prefix6, 48);
  EXPECT_FALSE(c.interfaces[1].has_static_address());  // no IPv4 there
  EXPECT_EQ(::net::apply_cmdline({"ip=fd00::2/129"}, c), "ip: '129' is not a prefix length 0..128");
  EXPECT_EQ(::net::apply_cmdline({"ip=fd00::2,fd00::3"}, c),
            "ip: 'fd00::3': one address per family");
  EXPECT_EQ(::net::apply_cmdline({"gw=fd00::zz"}, c), "gw: 'fd00::zz' is not an address");
  ::net::Config j;
  ASSERT_EQ(::net::parse_config_json(
                R"({"net": {"interfaces": [{"address": "10.0.0.2/24,fd00::2/64"}]}})", j),
            "");
  EXPECT_EQ(j.interfaces[0].address6, ip6_of("fd00::2"));
}

TEST_F(Udp6Test, ApplyingAConfigSetsTheIpv6Address) {
  ::net::Config c;
  ASSERT_EQ(::net::apply_cmdline({"ip=10.0.0.2/24,fd00::7/64"}, c), "");
  iface.apply(c.interface(0));
  EXPECT_EQ(iface.address6(), Ip6{});  // tentative for RETRANS_TIMER (RFC 4862)
  advance(std::chrono::seconds(1));
  EXPECT_EQ(iface.address6(), ip6_of("fd00::7"));
  EXPECT_EQ(iface.address(), stack_ip);
}

}  // namespace
}  // namespace keel::test
