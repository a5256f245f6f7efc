#include <gtest/gtest.h>

#include <net/config.hpp>
#include <net/interfaces.hpp>

#include "fake_os.hpp"
#include "frames.hpp"
#include "memory_nic.hpp"

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
  ASSERT_EQ(::net::parse_config_json(R"({"net": {"interfaces": [{"address": "10.9.9.9/8"}]}})", c), "");
  auto e = ::net::apply_cmdline({"console=ttyS0", "ip=10.0.0.2/24", "gw=10.0.0.1", "dns=10.0.0.1,10.0.0.3",
                                 "ip1=dhcp", "dhcp_timeout1=5", "dhcp_t11=7", "ip2=172.16.0.1"},
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
  EXPECT_EQ(::net::apply_cmdline({"gw1=10.0.0.300"}, c), "gw1: '10.0.0.300' is not an IPv4 address");
  EXPECT_EQ(::net::apply_cmdline({"ip0=10.0.0.1/99"}, c), "ip0: '99' is not a prefix length 0..32");
}

TEST(Ip4Addr, Parse) {
  EXPECT_EQ(::net::ip4::Addr::parse("10.0.0.1"), (Ip{10, 0, 0, 1}));
  for (const char* bad : {"", "10.0.0", "10.0.0.1.", "256.0.0.1", "01.0.0.1", "1.2.3.4x", "a.b.c.d", "1..2.3"})
    EXPECT_FALSE(::net::ip4::Addr::parse(bad)) << bad;
  EXPECT_EQ((Ip{192, 168, 1, 20}).to_string(), "192.168.1.20");
}

class InterfacesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    reset_os();
    ::net::Interfaces::clear_for_tests();
  }
  void TearDown() override {
    ::net::Interfaces::clear_for_tests();
    set_args({});
    reset_os();
  }
};

TEST_F(InterfacesTest, EachNicGetsItsOwnConfiguredStack) {
  set_args({"ip=10.0.0.2/24", "ip1=10.1.0.2/16", "gw1=10.1.0.1"});
  auto a = std::make_unique<::net::MemoryNic>(stack_mac);
  auto b = std::make_unique<::net::MemoryNic>(peer_mac);
  ::net::MemoryNic& b_ref = *b;
  EXPECT_EQ(::net::Interfaces::register_nic(std::move(a)), 0u);
  EXPECT_EQ(::net::Interfaces::register_nic(std::move(b)), 1u);
  EXPECT_EQ(::net::Interfaces::count(), 2u);
  auto& s0 = ::net::Interfaces::get(0);
  auto& s1 = ::net::Interfaces::get(1);
  EXPECT_EQ(s0.address(), (Ip{10, 0, 0, 2}));
  EXPECT_EQ(s1.address(), (Ip{10, 1, 0, 2}));
  EXPECT_EQ(s1.gateway(), (Ip{10, 1, 0, 1}));
  EXPECT_EQ(&s1.nic(), &b_ref);
  EXPECT_EQ(&::net::Interfaces::get(1), &s1);
  int called = 0;
  s1.on_config([&](::net::Inet& s) {
    ++called;
    EXPECT_EQ(&s, &s1);
  });
  EXPECT_EQ(called, 1);  // already configured: at once
  EXPECT_THROW(::net::Interfaces::get(2), std::runtime_error);
}

TEST_F(InterfacesTest, BadCommandLineIsAClearError) {
  set_args({"ip=10.0.0.2/24", "gw=nonsense"});
  ::net::Interfaces::register_nic(std::make_unique<::net::MemoryNic>(stack_mac));
  try {
    ::net::Interfaces::get(0);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "net config: gw: 'nonsense' is not an IPv4 address");
  }
}

}  // namespace
}  // namespace keel::test
