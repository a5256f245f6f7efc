// DNS servers and search domains from router advertisements (RFC 8106): a
// host with `auto` keeps them for their lifetimes, bounded, and services
// read them through Interface::dns6() and dns_search(). Malformed options are
// ignored and counted; the rest of the advertisement still counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "net/link/link.hpp"
#include "net/stack_parts.hpp"
#include "slaac_frames.hpp"
#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

const Ip6 dns_a = ip6_of("2001:db8:1::53");
const Ip6 dns_b = ip6_of("2001:db8:1::54");

// RFC 8106 §5.1: type 25, length 1 + 2 per address, lifetime.
Bytes rdnss_option(const std::vector<Ip6>& servers, uint32_t lifetime) {
  Bytes o{25, uint8_t(1 + 2 * servers.size()), 0, 0, 0, 0, 0, 0};
  ::net::wire::store32(&o[4], lifetime);
  for (const Ip6& s : servers) o.insert(o.end(), s.bytes.begin(), s.bytes.end());
  return o;
}
// RFC 8106 §5.2: type 31, lifetime, names as RFC 1035 labels, zero padded to 8 bytes.
Bytes dnssl_option(const std::vector<std::string>& names, uint32_t lifetime) {
  Bytes o{31, 0, 0, 0, 0, 0, 0, 0};
  ::net::wire::store32(&o[4], lifetime);
  for (const std::string& name : names) {
    std::size_t start = 0;
    while (start < name.size()) {
      std::size_t dot = name.find('.', start);
      if (dot == std::string::npos) dot = name.size();
      o.push_back(uint8_t(dot - start));
      o.insert(o.end(), name.begin() + long(start), name.begin() + long(dot));
      start = dot + 1;
    }
    o.push_back(0);
  }
  while (o.size() % 8) o.push_back(0);
  o[1] = uint8_t(o.size() / 8);
  return o;
}

class RdnssTest : public StackTest {
 protected:
  void SetUp() override {
    StackTest::SetUp();
    stack.parts().link(0).start_slaac(::net::SlaacIid::stable);
  }
  void advertise(const Bytes& options) {
    nic.inject(
        ip6_frame(ra(router_ll, 1800, cat({mac_option(router_mac), options})), all_nodes_mac));
  }
  const ::net::RouterCounters& ra_counters() { return link_counters().ra; }
};

TEST_F(RdnssTest, ServersAndDomainsAreKeptForTheirLifetime) {
  advertise(
      cat({rdnss_option({dns_a, dns_b}, 600), dnssl_option({"example.net", "corp.example"}, 300)}));
  EXPECT_EQ(iface.dns6(), (std::vector<Ip6>{dns_a, dns_b}));
  EXPECT_EQ(iface.dns_search(), (std::vector<std::string>{"example.net", "corp.example"}));
  advance(299s);
  EXPECT_EQ(iface.dns_search().size(), 2u);
  advance(1s);  // the search list's lifetime ran out
  EXPECT_TRUE(iface.dns_search().empty());
  EXPECT_EQ(iface.dns6().size(), 2u);
  // A new advertisement renews; lifetime 0 removes one (§5.1).
  advertise(rdnss_option({dns_a}, 0));
  EXPECT_EQ(iface.dns6(), (std::vector<Ip6>{dns_b}));
  advance(301s);
  EXPECT_TRUE(iface.dns6().empty());
  advertise(rdnss_option({dns_a}, 0xffffffff));  // infinity
  advance(24h);
  EXPECT_EQ(iface.dns6(), (std::vector<Ip6>{dns_a}));
}

TEST_F(RdnssTest, MalformedOptionsAreIgnoredAndCountedTheAdvertisementIsNot) {
  Bytes short_rdnss{25, 1, 0, 0, 0, 0, 0x0e, 0x10};                // length 1: no address
  Bytes even_rdnss = cat({rdnss_option({dns_a}, 600), Bytes(8)});  // length 4: half an address
  even_rdnss[1] = 4;
  Bytes group_rdnss = rdnss_option({ip6_of("ff02::1")}, 600);
  Bytes pointer = dnssl_option({"example.net"}, 600);
  pointer[8 + 8] = 0xc0;  // a compression pointer where "net"'s length is
  Bytes unterminated{31, 2, 0, 0, 0, 0, 0x0e, 0x10, 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e'};
  Bytes bad_char = dnssl_option({"exa mple.net"}, 600);
  Bytes garbage_padding = dnssl_option({"a.b"}, 600);
  garbage_padding.back() = 1;
  Bytes only_padding{31, 2, 0, 0, 0, 0, 0x0e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0};
  advertise(cat({short_rdnss, even_rdnss, group_rdnss, pointer, unterminated, bad_char,
                 garbage_padding, only_padding, rdnss_option({dns_b}, 600),
                 prefix_option(ip6_of("2001:db8:1::"), 64, on_link_autonomous, 3600, 1800)}));
  EXPECT_EQ(ra_counters().drop_bad_dns_option, 8u);
  EXPECT_EQ(ra_counters().drop_bad_format, 0u);
  EXPECT_EQ(iface.dns6(), (std::vector<Ip6>{dns_b}));  // the good option still taken
  EXPECT_TRUE(iface.dns_search().empty());
  EXPECT_EQ(stack.parts().link(0).routers().routers().size(), 1u);
}

TEST_F(RdnssTest, TheListsStayBounded) {
  using Rd = ::net::RouterDiscovery;
  for (int round = 0; round < 10; ++round) {
    std::vector<Ip6> servers;
    std::vector<std::string> names;
    for (int i = 0; i < 8; ++i) {
      Ip6 s = dns_a;
      s.bytes[14] = uint8_t(round);
      s.bytes[15] = uint8_t(i);
      servers.push_back(s);
      names.push_back("d" + std::to_string(round * 8 + i) + ".example");
    }
    // Later rounds live longer: each takes the places of those expiring first.
    advertise(cat({rdnss_option(servers, 600 + round), dnssl_option(names, 600 + round)}));
  }
  EXPECT_EQ(iface.dns6().size(), Rd::max_dns_servers);
  EXPECT_EQ(iface.dns_search().size(), Rd::max_search_domains);
  EXPECT_EQ(iface.dns6().front().bytes[14], 9);  // the last round's
  EXPECT_EQ(ra_counters().dns_evictions, 2u * 9 * 8);
  // One that would expire before all of them is not taken.
  advertise(rdnss_option({dns_b}, 10));
  std::vector<Ip6> kept = iface.dns6();
  EXPECT_EQ(kept.size(), Rd::max_dns_servers);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), dns_b), 0);
}

TEST_F(RdnssTest, WithoutAutoNothingIsKept) {
  stack.parts().link(0).configure6(ip6_of("fd00::2"), 64, {});
  advertise(rdnss_option({dns_a}, 600));
  EXPECT_TRUE(iface.dns6().empty());
}

}  // namespace
}  // namespace keel::test
