// Redirect for a host (RFC 4861 §8): accepted only from the current first
// hop of its destination, with hop limit 255, from a link-local source,
// and after every check of §8.1; then the destination's packets go to the
// better router (or to the destination itself, on the link) named, its MAC
// taken from the message (§8.3). Anything else is counted and changes
// nothing; a router takes none.
#include <gtest/gtest.h>

#include "ip6_fixture.hpp"
#include "net/stack_parts.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

constexpr uint8_t next_icmp6 = 58;
const Ip6 router_ll = ip6_of("fe80::1");      // the gateway
const Ip6 better_ll = ip6_of("fe80::2");      // the router the gateway sends us to
const Ip6 far_ip6 = ip6_of("2001:db8:5::9");  // off the link
const Mac router_mac{{0x02, 0, 0, 0, 0, 0x0a}};
const Mac better_mac{{0x02, 0, 0, 0, 0, 0x0b}};

// A Redirect (RFC 4861 §4.5) to our address: target, destination, a target
// link-layer address option if `mac`, and `extra` options.
Bytes redirect6(const Ip6& from, const Ip6& target, const Ip6& destination, const Mac* mac,
                uint8_t hop_limit = 255, uint8_t code = 0, const Bytes& extra = {}) {
  Bytes body(target.bytes.begin(), target.bytes.end());
  body.insert(body.end(), destination.bytes.begin(), destination.bytes.end());
  if (mac) {
    body.push_back(2);
    body.push_back(1);
    body.insert(body.end(), mac->bytes.begin(), mac->bytes.end());
  }
  body.insert(body.end(), extra.begin(), extra.end());
  return ip6(from, stack_ip6, next_icmp6, icmp6(from, stack_ip6, 137, code, 0, body), hop_limit);
}

class Redirect6Test : public Ip6StackTest {
 protected:
  void SetUp() override {
    Ip6StackTest::SetUp();
    iface.configure6(stack_ip6, 64, router_ll);  // the same address, with a gateway
    know(router_ll, router_mac);
    nic.transmitted.clear();
  }
  // `who` solicits us with its MAC: it is in the neighbour cache.
  void know(const Ip6& who, const Mac& mac) {
    inject6(ns(who, ::net::ip6addr::solicited_node(stack_ip6), stack_ip6, &mac),
            ::net::ip6addr::multicast_mac(::net::ip6addr::solicited_node(stack_ip6)));
  }
  // Sends a datagram to `to` and returns the MAC its frame went to.
  Mac first_hop_of(const Ip6& to) {
    nic.transmitted.clear();
    EXPECT_EQ(send6(to), ::net::Status::ok);
    for (const auto& f : nic.transmitted) {
      Bytes frame(f.begin(), f.end());
      if (ethertype(frame) == ::net::wire::ethertype_ip6 && sent_ip6(frame).next_header == 17) {
        EXPECT_EQ(sent_ip6(frame).dst, to);
        Mac m;
        std::copy(frame.begin(), frame.begin() + 6, m.bytes.begin());
        return m;
      }
    }
    ADD_FAILURE() << "no datagram sent";
    return {};
  }
};

TEST_F(Redirect6Test, ARedirectToABetterRouterIsFollowed) {
  EXPECT_EQ(first_hop_of(far_ip6), router_mac);
  inject6(redirect6(router_ll, better_ll, far_ip6, &better_mac));
  EXPECT_EQ(icmp6_counters().redirects_accepted, 1u);
  EXPECT_EQ(first_hop_of(far_ip6), better_mac);
  // Only that destination: another still goes through the gateway.
  EXPECT_EQ(first_hop_of(ip6_of("2001:db8:6::1")), router_mac);
}

TEST_F(Redirect6Test, ARedirectToTheDestinationPutsItOnTheLink) {
  const Mac far_mac{{0x02, 0, 0, 0, 0, 0x0c}};
  inject6(redirect6(router_ll, far_ip6, far_ip6, &far_mac));
  EXPECT_EQ(first_hop_of(far_ip6), far_mac);
  auto entry = stack.parts().link(0).ndp().state(far_ip6);
  ASSERT_TRUE(entry);  // §8.3: created STALE from the option
}

TEST_F(Redirect6Test, OnlyTheCurrentFirstHopMayRedirect) {
  inject6(redirect6(better_ll, better_ll, far_ip6, &better_mac));  // not our gateway
  EXPECT_EQ(icmp6_counters().drop_redirect_bad_source, 1u);
  EXPECT_EQ(first_hop_of(far_ip6), router_mac);
  // Once redirected, the new first hop may redirect again; the old one may not.
  inject6(redirect6(router_ll, better_ll, far_ip6, &better_mac));
  const Ip6 third_ll = ip6_of("fe80::3");
  const Mac third_mac{{0x02, 0, 0, 0, 0, 0x0d}};
  inject6(redirect6(router_ll, third_ll, far_ip6, &third_mac));
  EXPECT_EQ(icmp6_counters().drop_redirect_bad_source, 2u);
  EXPECT_EQ(first_hop_of(far_ip6), better_mac);
  inject6(redirect6(better_ll, third_ll, far_ip6, &third_mac));
  EXPECT_EQ(first_hop_of(far_ip6), third_mac);
  EXPECT_EQ(icmp6_counters().redirects_accepted, 2u);
}

TEST_F(Redirect6Test, HostileRedirectsAreCountedAndChangeNothing) {  // §8.1
  const Ip6 group = ip6_of("ff0e::1");
  inject6(redirect6(router_ll, better_ll, far_ip6, &better_mac, 254));     // hop limit not 255
  inject6(redirect6(router_ll, better_ll, far_ip6, &better_mac, 255, 1));  // code not 0
  EXPECT_EQ(icmp6_counters().drop_bad_nd, 2u);
  inject6(redirect6(ip6_of("fd00::fe"), better_ll, far_ip6, &better_mac));  // not link-local
  // A destination on the link has no first-hop router to redirect it.
  inject6(redirect6(router_ll, better_ll, peer_ip6, &better_mac));
  EXPECT_EQ(icmp6_counters().drop_redirect_bad_source, 2u);
  Bytes truncated = redirect6(router_ll, better_ll, far_ip6, nullptr);
  truncated.resize(truncated.size() - 8);  // 32 bytes of ICMPv6: under 40
  ::net::wire::store16(&truncated[4], uint16_t(truncated.size() - 40));
  Bytes short_icmp(truncated.begin() + 40, truncated.end());
  ::net::wire::icmp6_fill_checksum(short_icmp.data(), short_icmp.size(), router_ll, stack_ip6);
  std::copy(short_icmp.begin(), short_icmp.end(), truncated.begin() + 40);
  inject6(truncated);
  inject6(redirect6(router_ll, better_ll, group, &better_mac));             // group destination
  inject6(redirect6(router_ll, ip6_of("fd00::77"), far_ip6, &better_mac));  // global target
  inject6(redirect6(router_ll, better_ll, far_ip6, nullptr, 255, 0, {2, 0, 0, 0, 0, 0, 0, 0}));
  inject6(redirect6(router_ll, better_ll, far_ip6, nullptr, 255, 0, {2, 2, 1, 2, 3, 4, 5, 6}));
  const Mac group_mac{{0x33, 0x33, 0, 0, 0, 1}};
  inject6(redirect6(router_ll, better_ll, far_ip6, &group_mac));  // a group MAC for a router
  EXPECT_EQ(icmp6_counters().drop_redirect_bad_format, 6u);
  EXPECT_EQ(icmp6_counters().redirects_accepted, 0u);
  EXPECT_EQ(first_hop_of(far_ip6), router_mac);
  // The Redirected Header option and unknown ones are skipped.
  Bytes redirected_header{4, 2, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  inject6(redirect6(router_ll, better_ll, far_ip6, &better_mac, 255, 0, redirected_header));
  EXPECT_EQ(first_hop_of(far_ip6), better_mac);
}

TEST_F(Redirect6Test, ARedirectIsForgottenAfterTenMinutes) {
  inject6(redirect6(router_ll, better_ll, far_ip6, &better_mac));
  advance(590s);
  know(better_ll, better_mac);
  EXPECT_EQ(first_hop_of(far_ip6), better_mac);
  advance(11s);
  know(router_ll, router_mac);
  EXPECT_EQ(first_hop_of(far_ip6), router_mac);
}

TEST_F(Redirect6Test, ARouterTakesNone) {
  stack.set_forwarding(true);
  inject6(redirect6(router_ll, better_ll, far_ip6, &better_mac));
  EXPECT_EQ(icmp6_counters().drop_redirect_forwarding, 1u);
  EXPECT_EQ(first_hop_of(far_ip6), router_mac);
}

TEST_F(Redirect6Test, AFloodOfRedirectsStaysWithinTheCache) {
  for (int i = 0; i < 200; ++i) {
    Ip6 dst = far_ip6;
    dst.bytes[14] = uint8_t(i >> 8);
    dst.bytes[15] = uint8_t(i);
    inject6(redirect6(router_ll, better_ll, dst, nullptr));
  }
  EXPECT_EQ(icmp6_counters().redirects_accepted, 200u);
  EXPECT_EQ(stack.parts().ip6.destinations().size(), ::net::Destinations::max_entries);
  EXPECT_EQ(ip6_counters().destination_evictions, 200u - ::net::Destinations::max_entries);
}

}  // namespace
}  // namespace keel::test
