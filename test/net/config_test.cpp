// Network configuration: the JSON and command-line parsers, and applying
// an interface's settings to the stack.
#include <net/config.hpp>

#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Config;
using ::net::InterfaceConfig;

TEST(Config, Json) {
  Config c;
  auto e = ::net::parse_config_json(R"({"net": {"interfaces": [
      {"address": "10.0.0.2/24", "gateway": "10.0.0.1", "dns": ["10.0.0.1", "9.9.9.9"]},
      {"dhcp": true, "address": "192.168.1.5", "netmask": "255.255.0.0", "dhcp_timeout": 3}]}})",
                                    c);
  ASSERT_EQ(e, "");
  ASSERT_EQ(c.interfaces.size(), 2u);
  EXPECT_EQ(c.interfaces[0].mode, InterfaceConfig::Mode::static_address);
  EXPECT_EQ(c.interfaces[0].address, (Ip{10, 0, 0, 2}));
  EXPECT_EQ(c.interfaces[0].netmask, ::net::ip4::netmask_of(24));
  EXPECT_EQ(c.interfaces[0].dns.size(), 2u);
  EXPECT_EQ(c.interfaces[1].mode, InterfaceConfig::Mode::dhcp);
  EXPECT_EQ(c.interfaces[1].netmask, ::net::ip4::netmask_of(16));
  EXPECT_EQ(c.interfaces[1].dhcp_timeout, std::chrono::seconds(3));
}

TEST(Config, JsonErrorsNameTheField) {
  Config c;
  EXPECT_EQ(::net::parse_config_json(R"({"net": {"interfaces": [{}, {"gateway": "10.0.0"}]}})", c),
            "net.interfaces[1].gateway: '10.0.0' is not an IPv4 address");
  EXPECT_EQ(::net::parse_config_json(R"({"net": {"interfaces": [{"adress": "1.2.3.4"}]}})", c),
            "net.interfaces[0].adress: unknown field");
  EXPECT_EQ(::net::parse_config_json(R"({"net": {"interfaces": [{"address": "1.2.3.4/33"}]}})", c),
            "net.interfaces[0].address: '33' is not a prefix length 0..32");
  EXPECT_EQ(::net::parse_config_json(R"({"net": {"interfaces": [{"dns": ["1.2.3.4", 5]}]}})", c),
            "net.interfaces[0].dns[1]: expected a string");
  EXPECT_EQ(::net::parse_config_json("{nope", c), "net config: not valid JSON");
  EXPECT_EQ(::net::parse_config_json("", c), "");
}

TEST(Config, CommandLineOverridesPerInterface) {
  Config c;
  ASSERT_EQ(::net::parse_config_json(R"({"net": {"interfaces": [{"address": "10.9.9.9/8"}]}})", c),
            "");
  auto e = ::net::apply_cmdline(
      {"console=ttyS0", "ip=10.0.0.2/24", "gw=10.0.0.1", "dns=10.0.0.1,10.0.0.3", "ip1=dhcp",
       "dhcp_timeout1=5", "dhcp_t11=7", "ip2=172.16.0.1"},
      c);
  ASSERT_EQ(e, "");
  ASSERT_EQ(c.interfaces.size(), 3u);
  EXPECT_EQ(c.interfaces[0].address, (Ip{10, 0, 0, 2}));
  EXPECT_EQ(c.interfaces[0].netmask, ::net::ip4::netmask_of(24));
  EXPECT_EQ(c.interfaces[0].gateway, (Ip{10, 0, 0, 1}));
  EXPECT_EQ(c.interfaces[0].dns.size(), 2u);
  EXPECT_EQ(c.interfaces[1].mode, InterfaceConfig::Mode::dhcp);
  EXPECT_EQ(c.interfaces[1].dhcp_timeout, std::chrono::seconds(5));
  EXPECT_EQ(*c.interfaces[1].dhcp_t1, std::chrono::seconds(7));
  EXPECT_EQ(c.interfaces[2].address, (Ip{172, 16, 0, 1}));
  EXPECT_EQ(::net::apply_cmdline({"gw1=10.0.0.300"}, c),
            "gw1: '10.0.0.300' is not an IPv4 address");
  EXPECT_EQ(::net::apply_cmdline({"ip0=10.0.0.1/99"}, c), "ip0: '99' is not a prefix length 0..32");
}

TEST(Ip4Addr, Parse) {
  EXPECT_EQ(::net::ip4::Addr::parse("10.0.0.1"), (Ip{10, 0, 0, 1}));
  for (const char* bad :
       {"", "10.0.0", "10.0.0.1.", "256.0.0.1", "01.0.0.1", "1.2.3.4x", "a.b.c.d", "1..2.3"})
    EXPECT_FALSE(::net::ip4::Addr::parse(bad)) << bad;
  EXPECT_EQ((Ip{192, 168, 1, 20}).to_string(), "192.168.1.20");
}

TEST(Config, StackWideSettingsAndRoutes) {
  Config c;
  ASSERT_EQ(::net::parse_config_json(R"({"net": {"forwarding": true,
      "reassembly": {"max_bytes": 4194304, "timeout": 30},
      "routes": [{"destination": "10.2.0.0/16", "gateway": "10.0.0.254"},
                 {"destination": "default", "gateway": "10.1.0.1", "interface": 1, "metric": 5}]}})",
                                     c),
            "");
  EXPECT_TRUE(c.stack.forwarding);
  EXPECT_EQ(c.stack.reassembly.max_bytes, 4194304u);
  EXPECT_EQ(c.stack.reassembly.timeout, std::chrono::seconds(30));
  EXPECT_EQ(c.stack.reassembly.timeout6, std::chrono::seconds(30));  // both families
  ASSERT_EQ(c.routes.size(), 2u);
  EXPECT_EQ(c.routes[0].destination, (Ip{10, 2, 0, 0}));
  EXPECT_EQ(c.routes[0].prefix_len, 16);
  EXPECT_EQ(c.routes[0].gateway, (Ip{10, 0, 0, 254}));
  EXPECT_EQ(c.routes[0].interface, -1);
  EXPECT_EQ(c.routes[1].destination, Ip{});
  EXPECT_EQ(c.routes[1].prefix_len, 0);
  EXPECT_EQ(c.routes[1].interface, 1);
  EXPECT_EQ(c.routes[1].metric, 5u);
  ASSERT_EQ(::net::apply_cmdline({"forward=off", "route=192.168.0.0/24,,1", "reassembly_bytes=1M",
                                  "reassembly_timeout=20"},
                                 c),
            "");
  EXPECT_FALSE(c.stack.forwarding);
  ASSERT_EQ(c.routes.size(), 3u);
  EXPECT_TRUE(c.routes[2].gateway.is_any());
  EXPECT_EQ(c.routes[2].interface, 1);
  EXPECT_EQ(c.stack.reassembly.max_bytes, std::size_t(1) << 20);
  EXPECT_EQ(c.stack.reassembly.timeout, std::chrono::seconds(20));
  EXPECT_EQ(c.stack.reassembly.timeout6, std::chrono::seconds(20));         // both families
  EXPECT_EQ(::net::ReassemblyConfig{}.timeout6, std::chrono::seconds(60));  // RFC 8200 §4.5
  EXPECT_EQ(::net::apply_cmdline({"route=10.0.0.0/8"}, c),
            "route: '10.0.0.0/8' is not DEST/LEN,GATEWAY[,INTERFACE]");
  EXPECT_EQ(::net::apply_cmdline({"route=10.0.0.0/8,"}, c),
            "route: needs a gateway or an interface");
  EXPECT_EQ(::net::apply_cmdline({"forward=maybe"}, c), "forward: 'maybe' is not on or off");
  EXPECT_EQ(::net::parse_config_json(R"({"net": {"routes": [{"destination": "10.0.0.0/8"}]}})", c),
            "net.routes[0]: needs a gateway or an interface");
  EXPECT_EQ(::net::parse_config_json(R"({"net": {"reassembly": {"timeout": 0}}})", c),
            "net.reassembly.timeout: expected 1 to 3600 seconds");
}

// mtuN= lowers a link's MTU (a router's narrower link), never below IPv6's 1280.
TEST(Config, LinkMtu) {
  Config c;
  ASSERT_EQ(::net::apply_cmdline({"mtu1=1400"}, c), "");
  EXPECT_EQ(c.interface(1).mtu, 1400);
  EXPECT_EQ(c.interface(0).mtu, 0);
  ASSERT_EQ(::net::parse_config_json(R"({"net": {"interfaces": [{"mtu": 9000}]}})", c), "");
  EXPECT_EQ(c.interface(0).mtu, 9000);
  EXPECT_EQ(::net::apply_cmdline({"mtu=1279"}, c), "mtu: '1279' is not an MTU from 1280 to 65535");
}

// route= takes IPv6 prefixes and gateways as well (decision 0134), in the
// same words and JSON fields; a gateway of the other family is refused.
TEST(Config, Ipv6Routes) {
  Config c;
  ASSERT_EQ(::net::apply_cmdline({"route=2001:db8:2::/48,fd01::1", "route=::/0,,1"}, c), "");
  ASSERT_EQ(::net::parse_config_json(R"({"net": {"routes": [
      {"destination": "2001:db8:3::/64", "gateway": "fd00::1", "interface": 0, "metric": 7}]}})",
                                     c),
            "");
  ASSERT_EQ(c.routes.size(), 3u);
  EXPECT_EQ(c.routes[0].destination, *::net::Address::parse("2001:db8:2::"));
  EXPECT_EQ(c.routes[0].prefix_len, 48);
  EXPECT_EQ(c.routes[0].gateway, *::net::Address::parse("fd01::1"));
  EXPECT_EQ(c.routes[0].interface, -1);
  EXPECT_TRUE(c.routes[1].destination.is_ip6());
  EXPECT_EQ(c.routes[1].prefix_len, 0);
  EXPECT_EQ(c.routes[1].interface, 1);
  EXPECT_EQ(c.routes[2].metric, 7u);
  EXPECT_EQ(c.routes[2].gateway, *::net::Address::parse("fd00::1"));
  EXPECT_EQ(::net::apply_cmdline({"route=2001:db8::/129,fd00::1"}, c),
            "route: '129' is not a prefix length 0..128");
  EXPECT_EQ(::net::apply_cmdline({"route=2001:db8::/32,10.0.0.1"}, c),
            "route: the gateway is not of the destination's family");
  EXPECT_EQ(::net::apply_cmdline({"route=10.0.0.0/8,fd00::1"}, c),
            "route: the gateway is not of the destination's family");
  EXPECT_EQ(::net::apply_cmdline({"route=2001:db8::/32,fd00::zz"}, c),
            "route: 'fd00::zz' is not an IPv4 or IPv6 address");
}

// TSO is on unless a boot setting turns it off (docs/decisions/0092).
TEST(Config, SegmentationOffloadSetting) {
  Config c;
  EXPECT_TRUE(c.stack.segmentation_offload);
  ASSERT_EQ(::net::apply_cmdline({"tso=off"}, c), "");
  EXPECT_FALSE(c.stack.segmentation_offload);
  ASSERT_EQ(::net::apply_cmdline({"tso=1"}, c), "");
  EXPECT_TRUE(c.stack.segmentation_offload);
  EXPECT_EQ(::net::apply_cmdline({"tso=no"}, c), "tso: 'no' is not on or off");
  ASSERT_EQ(::net::parse_config_json(R"({"net": {"tso": false}})", c), "");
  EXPECT_FALSE(c.stack.segmentation_offload);
  EXPECT_EQ(::net::parse_config_json(R"({"net": {"tso": 0}})", c),
            "net.tso: expected true or false");
}

TEST(Config, ApplyingAnInterfaceConfig) {
  ManualClock clock;
  ::net::MemoryNic nic0(stack_mac), nic1(peer_mac);
  ::net::Stack stack(clock, test_stack_config());
  ::net::Interface& if0 = stack.add_interface(nic0);
  ::net::Interface& if1 = stack.add_interface(nic1);
  EXPECT_EQ(stack.interface_count(), 2u);
  EXPECT_EQ(&stack.interface(1), &if1);
  EXPECT_EQ(if1.id(), 1);
  EXPECT_EQ(if1.name(), "net1");
  EXPECT_EQ(&if1.nic(), &nic1);
  EXPECT_EQ(if1.mac(), peer_mac);
  EXPECT_EQ(if1.mtu(), 1500);
  Config c;
  ASSERT_EQ(::net::apply_cmdline(
                {"ip=10.0.0.2/24", "ip1=10.1.0.2/16", "gw1=10.1.0.1", "dns1=9.9.9.9"}, c),
            "");
  if0.apply(c.interface(0));
  if1.apply(c.interface(1));
  EXPECT_EQ(if0.address(), (Ip{10, 0, 0, 2}));
  EXPECT_EQ(if1.address(), (Ip{10, 1, 0, 2}));
  EXPECT_EQ(if1.netmask(), ::net::ip4::netmask_of(16));
  EXPECT_EQ(if1.gateway(), (Ip{10, 1, 0, 1}));
  EXPECT_EQ(if1.dns(), (std::vector<Ip>{Ip{9, 9, 9, 9}}));
  int called = 0;
  if1.on_config([&](::net::Interface& i) {
    ++called;
    EXPECT_EQ(&i, &if1);
  });
  EXPECT_EQ(called, 0);  // handlers run at the stack's step (docs/net/handlers.md)
  clock.advance(0ns);
  EXPECT_EQ(called, 1);  // already configured: at the next step
  if1.configure(Ip{10, 1, 0, 3}, ::net::ip4::netmask_of(16));
  clock.advance(0ns);
  EXPECT_EQ(called, 2);  // and at each change
  EXPECT_THROW(stack.interface(2), std::out_of_range);
}

TEST(Config, ApplyingNoneStopsDhcpAndDropsTheAddress) {
  ManualClock clock;
  ::net::MemoryNic nic0(stack_mac), nic1(peer_mac);
  ::net::Stack stack(clock, test_stack_config());
  ::net::Interface& if0 = stack.add_interface(nic0);
  ::net::Interface& if1 = stack.add_interface(nic1);
  if0.configure(stack_ip, ::net::ip4::netmask_of(24));
  if1.start_dhcp();
  nic1.transmitted.clear();
  if0.apply(Config{}.interface(0));  // Mode::none
  if1.apply(Config{}.interface(1));
  EXPECT_FALSE(if0.is_configured());
  EXPECT_FALSE(stack.routes().lookup(stack_ip).has_value());
  clock.advance(std::chrono::seconds(120));
  EXPECT_TRUE(nic1.transmitted.empty());  // no more DISCOVERs
}

}  // namespace
}  // namespace keel::test
