// Router discovery (RFC 4861 §6.3) and SLAAC (RFC 4862 §5.5, RFC 7217):
// solicitations at start, advertisements' effects, and their bounds.
#include "net/link/slaac.hpp"

#include "net/link/link.hpp"
#include "net/stack_parts.hpp"
#include "slaac_frames.hpp"
#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::wire::EthernetRepr;
using ::net::wire::Ip6Repr;
namespace ip6a = ::net::ip6addr;

const Ip6 prefix_a = ip6_of("2001:db8:1::");
const Ip6 prefix_b = ip6_of("2001:db8:2::");

class SlaacTest : public StackTest {
 protected:
  void SetUp() override {
    StackTest::SetUp();
    link().start_slaac(::net::SlaacIid::stable);
  }
  ::net::Link& link() { return stack.parts().link(0); }
  ::net::RouterDiscovery& routers() { return link().routers(); }
  const ::net::RouterCounters& ra_counters() { return link_counters().ra; }
  void inject6(const Bytes& packet, Mac dst = all_nodes_mac) { nic.inject(ip6_frame(packet, dst)); }
  // A router's usual advertisement: 1800 s as default router, its MAC, one /64.
  void advertise(const Ip6& prefix, uint32_t valid = 3600, uint32_t preferred = 1800) {
    inject6(ra(router_ll, 1800,
               cat({mac_option(router_mac),
                    prefix_option(prefix, 64, on_link_autonomous, valid, preferred)})));
  }
  ::net::Status send6(const Ip6& dst) {
    if (!sender.is_open()) sender = *stack.udp().bind(0);
    return sender.send_to({dst, 9}, "a", 1);
  }
  // The tentative address SLAAC formed from `prefix` (DAD's solicitation names it).
  Ip6 formed(const Ip6& prefix) {
    for (const auto& a : routers().slaac().addresses())
      if (ip6a::in_prefix(a.address, prefix, 64)) return a.address;
    return {};
  }
};

TEST_F(SlaacTest, SolicitationsAtStartThreeAtMost) {  // RFC 4861 §6.3.7
  advance(1s);                                        // up to MAX_RTR_SOLICITATION_DELAY
  drop_mld(nic.transmitted);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  Ip6 all_routers = ip6_of("ff02::2");
  EXPECT_EQ(sent_ethernet(f), (EthernetRepr{ip6a::multicast_mac(all_routers), stack_mac,
                                            ::net::wire::ethertype_ip6}));
  EXPECT_EQ(sent_ip6(f), (Ip6Repr{stack_link_local, all_routers, 58, 255, 16}));
  EXPECT_EQ(sent_icmp6(f), icmp6(stack_link_local, all_routers, 133, 0, 0, mac_option(stack_mac)));
  advance(4s);
  advance(4s);
  advance(60s);
  EXPECT_EQ(nic.transmitted.size(), 2u);  // RTR_SOLICITATION_INTERVAL apart, 3 in all
  EXPECT_EQ(ra_counters().tx_solicitations, 3u);
}

TEST_F(SlaacTest, AdvertisementStopsSolicitations) {
  advance(1s);
  advertise(prefix_a);
  advance(60s);
  EXPECT_EQ(ra_counters().tx_solicitations, 1u);
}

TEST_F(SlaacTest, AddressIsFormedAfterDetection) {  // RFC 4862 §5.5.3 (d), §5.4
  advance(1s);
  nic.transmitted.clear();
  advertise(prefix_a);
  drop_mld(nic.transmitted);
  Ip6 a = formed(prefix_a);
  ASSERT_FALSE(a.is_any());
  ASSERT_EQ(nic.transmitted.size(), 1u);  // detection: a solicitation from ::
  Ip6 group = ip6a::solicited_node(a);
  EXPECT_EQ(sent_icmp6(nic.pop()), icmp6(Ip6{}, group, 135, 0, 0, nd_body(a, 1, nullptr)));
  EXPECT_FALSE(iface.link_local() == a);
  EXPECT_FALSE(link().has_address6(a));  // tentative
  advance(1s);
  EXPECT_TRUE(link().has_address6(a));
  EXPECT_EQ(ra_counters().addresses_formed, 1u);
  // RFC 7217: not the EUI-64 identifier.
  EXPECT_NE(Bytes(a.bytes.begin() + 8, a.bytes.end()),
            Bytes(stack_link_local.bytes.begin() + 8, stack_link_local.bytes.end()));
  // The router is the default route, its MAC known from the option (§6.3.4).
  EXPECT_EQ(link().router6(), router_ll);
  EXPECT_EQ(link().ndp().state(router_ll), ::net::Ndp::State::stale);
  EXPECT_TRUE(link().on_link6(ip6_of("2001:db8:1::77")));
  drop_mld(nic.transmitted);
  ASSERT_EQ(send6(ip6_of("2001:db8:9::5")), ::net::Status::ok);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(sent_ethernet(f).dst, router_mac);
  EXPECT_EQ(sent_ip6(f).src, a);
  // Echo to the new address is answered from it.
  inject6(ip6(ip6_of("2001:db8:9::5"), a, 58, icmp6(ip6_of("2001:db8:9::5"), a, 128, 0, 7, {1})),
          stack_mac);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip6(nic.pop()).src, a);
}

TEST_F(SlaacTest, StableIdentifierPerPrefixAndEui64BySetting) {
  advertise(prefix_a);
  advertise(prefix_b);
  Ip6 a = formed(prefix_a), b = formed(prefix_b);
  ASSERT_FALSE(a.is_any());
  ASSERT_FALSE(b.is_any());
  // RFC 7217 §5: a different prefix gives a different identifier.
  EXPECT_NE(Bytes(a.bytes.begin() + 8, a.bytes.end()), Bytes(b.bytes.begin() + 8, b.bytes.end()));
  advertise(prefix_a);  // the same prefix again: the same address, not another
  EXPECT_EQ(routers().slaac().addresses().size(), 2u);
  link().start_slaac(::net::SlaacIid::eui64);
  advertise(prefix_a);
  EXPECT_EQ(formed(prefix_a), ip6_of("2001:db8:1::ff:fe00:1"));  // RFC 4291 appendix A
}

TEST_F(SlaacTest, DuplicateTriesTheNextCounter) {  // RFC 7217 §6
  advertise(prefix_a);
  Ip6 first = formed(prefix_a);
  nic.transmitted.clear();
  inject6(na(ip6_of("2001:db8:1::99"), ip6a::all_nodes(), first, 0x20, &peer_mac));
  drop_mld(nic.transmitted);
  Ip6 second = formed(prefix_a);
  EXPECT_NE(second, first);
  EXPECT_FALSE(second.is_any());
  EXPECT_EQ(ra_counters().address_conflicts, 1u);
  ASSERT_EQ(nic.transmitted.size(), 1u);  // a new detection
  advance(1s);
  EXPECT_TRUE(link().has_address6(second));
  EXPECT_FALSE(link().has_address6(first));
}

TEST_F(SlaacTest, LifetimesAndTheTwoHourRule) {  // RFC 4862 §5.5.3 (e)
  advertise(prefix_a, 3 * 3600, 3 * 3600);
  advance(1s);
  Ip6 a = formed(prefix_a);
  ASSERT_TRUE(link().has_address6(a));
  advertise(prefix_a, 0, 0);  // would end it now: held to two hours instead
  advance(7199s);
  EXPECT_TRUE(link().has_address6(a));
  EXPECT_EQ(link().global_source6(), a);  // deprecated (preferred 0), still the only one
  advertise(prefix_a, 0, 0);              // two hours or less remain: ignored
  advance(2s);
  EXPECT_FALSE(link().has_address6(a));
  EXPECT_EQ(ra_counters().addresses_expired, 1u);
  EXPECT_TRUE(link().global_source6().is_any());
}

TEST_F(SlaacTest, LongerValidLifetimeIsTaken) {
  advertise(prefix_a, 600, 600);
  advance(1s);
  advertise(prefix_a, 900, 600);  // lengthens: taken though under two hours
  advance(800s);
  EXPECT_TRUE(link().has_address6(formed(prefix_a)));
}

TEST_F(SlaacTest, RouterLifetimeZeroRemovesTheRouter) {  // RFC 4861 §6.3.4
  advertise(prefix_a);
  EXPECT_EQ(link().router6(), router_ll);
  inject6(ra(router_ll, 0, {}));
  EXPECT_TRUE(link().router6().is_any());
  advertise(prefix_a);
  advance(1801s);  // the router lifetime ran out
  EXPECT_TRUE(link().router6().is_any());
}

TEST_F(SlaacTest, MtuOptionLowersIpv6MtuOnly) {
  inject6(ra(router_ll, 1800, mtu_option(1400)));
  EXPECT_EQ(link().mtu6(), 1400);
  EXPECT_EQ(link().mtu(), 1500);
  inject6(ra(router_ll, 1800, mtu_option(1279)));  // under IPv6's minimum
  inject6(ra(router_ll, 1800, mtu_option(9000)));  // over the link's
  EXPECT_EQ(link().mtu6(), 1400);
  EXPECT_EQ(ra_counters().drop_bad_mtu, 2u);
}

TEST_F(SlaacTest, InvalidAdvertisementsAreCountedAndChangeNothing) {  // RFC 4861 §6.1.2
  Bytes good = prefix_option(prefix_a, 64, on_link_autonomous, 3600, 1800);
  inject6(ra(router_ll, 1800, good, 64));                  // hop limit not 255
  inject6(ra(router_ll, 1800, good, 255, 1));              // code not 0
  inject6(ra(ip6_of("2001:db8::1"), 1800, good));          // not link-local
  inject6(ra(router_ll, 1800, cat({good, Bytes{9, 0}})));  // a zero-length option
  Bytes short_ra = ra(router_ll, 1800, {});
  short_ra.resize(40 + 12);  // 12 bytes of RA
  ::net::wire::store16(&short_ra[4], 12);
  ::net::wire::icmp6_fill_checksum(&short_ra[40], 12, router_ll, ip6a::all_nodes());
  inject6(short_ra);
  Bytes long_prefix = good;
  long_prefix[1] = 5;  // 40 bytes claimed, 32 there
  inject6(ra(router_ll, 1800, long_prefix));
  Bytes bad_length = good;
  bad_length[2] = 200;  // a prefix length over 128
  inject6(ra(router_ll, 1800, bad_length));
  inject6(ra(router_ll, 1800, mac_option(Mac{{0x33, 0x33, 0, 0, 0, 1}})));  // a group MAC
  EXPECT_EQ(counters().icmp6.drop_bad_nd, 2u);
  EXPECT_EQ(ra_counters().drop_bad_source, 1u);
  EXPECT_EQ(ra_counters().drop_bad_format, 5u);
  EXPECT_TRUE(routers().routers().empty());
  EXPECT_TRUE(routers().prefixes().empty());
  EXPECT_TRUE(routers().slaac().addresses().empty());
}

TEST_F(SlaacTest, PrefixesSlaacCannotUseAreCounted) {  // RFC 4862 §5.5.3
  inject6(ra(router_ll, 1800, prefix_option(prefix_a, 48, on_link_autonomous, 3600, 1800)));
  inject6(ra(router_ll, 1800, prefix_option(prefix_b, 64, on_link_autonomous, 60, 600)));
  inject6(ra(router_ll, 1800, prefix_option(ip6_of("fe80::"), 64, on_link_autonomous, 60, 60)));
  inject6(ra(router_ll, 1800, prefix_option(prefix_b, 64, 0x80, 60, 60)));  // A not set
  EXPECT_EQ(ra_counters().drop_prefix_length, 1u);
  EXPECT_EQ(ra_counters().drop_prefix_lifetime, 1u);
  EXPECT_TRUE(routers().slaac().addresses().empty());
  EXPECT_EQ(routers().prefixes().size(), 2u);  // the /48 and 2001:db8:2::/64 are on-link
}

TEST_F(SlaacTest, FloodsStayBounded) {
  // 30 prefix options in one advertisement, 40 routers, 40 prefixes.
  Bytes many;
  for (int i = 0; i < 30; ++i) {
    Ip6 p = prefix_a;
    p.bytes[5] = uint8_t(i);
    many = cat({many, prefix_option(p, 64, on_link_autonomous, 3600, 1800)});
  }
  inject6(ra(router_ll, 1800, many));
  EXPECT_EQ(ra_counters().drop_prefix_options, 30u - ::net::RaRepr::max_prefixes);
  for (int i = 0; i < 40; ++i) {
    Ip6 router = router_ll, p = prefix_b;
    router.bytes[15] = uint8_t(i + 2);
    p.bytes[4] = uint8_t(i);
    inject6(ra(router, 1800, prefix_option(p, 64, on_link_autonomous, 3600, 1800)));
  }
  EXPECT_EQ(routers().routers().size(), ::net::RouterDiscovery::max_routers);
  EXPECT_EQ(routers().prefixes().size(), ::net::RouterDiscovery::max_prefixes);
  EXPECT_EQ(routers().slaac().addresses().size(), ::net::Slaac::max_addresses);
  EXPECT_GT(ra_counters().drop_routers_full, 0u);
  EXPECT_GT(ra_counters().drop_prefixes_full, 0u);
  EXPECT_GT(ra_counters().drop_addresses_full, 0u);
  advance(2s);  // the stack still answers
  inject6(ip6(peer_link_local, stack_link_local, 58,
              icmp6(peer_link_local, stack_link_local, 128, 0, 7, {1})),
          stack_mac);
  EXPECT_EQ(counters().icmp6.rx_echo_requests, 1u);
}

class SlaacStaticTest : public SlaacTest {
 protected:
  void SetUp() override {
    StackTest::SetUp();
    iface.configure6(ip6_of("fd00::2"), 64);
  }
};

TEST_F(SlaacStaticTest, WithoutAutoAdvertisementsAreIgnored) {
  advance(5s);
  EXPECT_EQ(ra_counters().tx_solicitations, 0u);
  advertise(prefix_a);
  EXPECT_EQ(ra_counters().drop_not_auto, 1u);
  EXPECT_TRUE(link().router6().is_any());
  EXPECT_TRUE(routers().slaac().addresses().empty());
}

TEST(ConfigSlaac, AutoInTheAddressList) {
  ::net::Config c;
  ASSERT_EQ(::net::apply_cmdline({"ip=10.0.0.2/24,auto", "ip1=auto", "iid1=eui64", "ip2=dhcp,auto",
                                  "ip3=fd00::2/64,auto"},
                                 c),
            "");
  EXPECT_TRUE(c.interfaces[0].slaac);
  EXPECT_EQ(c.interfaces[0].address, (Ip{10, 0, 0, 2}));
  EXPECT_EQ(c.interfaces[0].iid, ::net::SlaacIid::stable);
  EXPECT_TRUE(c.interfaces[1].slaac);
  EXPECT_EQ(c.interfaces[1].iid, ::net::SlaacIid::eui64);
  EXPECT_EQ(c.interfaces[2].mode, ::net::InterfaceConfig::Mode::dhcp);
  EXPECT_TRUE(c.interfaces[2].slaac);
  EXPECT_TRUE(c.interfaces[3].slaac);
  EXPECT_EQ(c.interfaces[3].address6, ip6_of("fd00::2"));
  // A static IPv6 address alone turns SLAAC off; an IPv4 one leaves it.
  ASSERT_EQ(::net::apply_cmdline({"ip=10.0.0.3/24", "ip1=fd01::2/64"}, c), "");
  EXPECT_TRUE(c.interfaces[0].slaac);
  EXPECT_FALSE(c.interfaces[1].slaac);
  EXPECT_EQ(::net::apply_cmdline({"iid=random"}, c), "iid: 'random' is not stable or eui64");
}

}  // namespace
}  // namespace keel::test
