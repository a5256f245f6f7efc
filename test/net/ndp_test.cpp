// Neighbor Discovery for a host (RFC 4861): answering solicitations,
// resolving before sending, the cache's states and bounds.
#include "net/link/ndp.hpp"

#include "ip6_fixture.hpp"
#include "net/stack_parts.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Ndp;
using ::net::wire::EthernetRepr;
using ::net::wire::Ip6Repr;
namespace ip6a = ::net::ip6addr;

using NdpTest = Ip6StackTest;

const Mac solicited_mac = ip6a::multicast_mac(ip6a::solicited_node(stack_ip6));

// The advertisement the stack sent: flags byte, target and its MAC option.
void expect_advertisement(const Bytes& f, const Ip6& to, Mac to_mac, const Ip6& target,
                          uint8_t flags) {
  EXPECT_EQ(sent_ethernet(f), (EthernetRepr{to_mac, stack_mac, ::net::wire::ethertype_ip6}));
  EXPECT_EQ(sent_ip6(f), (Ip6Repr{target, to, 58, 255, 32}));
  Bytes m = sent_icmp6(f);
  Bytes expected = icmp6(target, to, 136, 0, uint32_t(flags) << 24, nd_body(target, 2, &stack_mac));
  EXPECT_EQ(m, expected);
}

::net::Ndp& ndp(::net::Stack& stack) { return stack.parts().link(0).ndp(); }

TEST_F(NdpTest, LinkLocalAddressIsTheModifiedEui64OfTheMac) {
  EXPECT_EQ(iface.link_local(), stack_link_local);
}

TEST_F(NdpTest, SolicitationForOurAddressIsAnswered) {
  inject6(ns(peer_link_local, ip6a::solicited_node(stack_ip6), stack_ip6, &peer_mac),
          solicited_mac);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  expect_advertisement(nic.pop(), peer_link_local, peer_mac, stack_ip6, 0x60);  // S, O
  EXPECT_EQ(ndp(stack).state(peer_link_local), Ndp::State::stale);              // §7.2.3
  // For the link-local address, at its own solicited-node group.
  inject6(ns(peer_link_local, ip6a::solicited_node(stack_link_local), stack_link_local, &peer_mac),
          ip6a::multicast_mac(ip6a::solicited_node(stack_link_local)));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  expect_advertisement(nic.pop(), peer_link_local, peer_mac, stack_link_local, 0x60);
}

TEST_F(NdpTest, InvalidSolicitationsAreCounted) {                   // §7.1.1
  inject6(ns(peer_ip6, stack_ip6, ip6_of("fd00::77"), &peer_mac));  // not ours
  Bytes low_hop = ns(peer_ip6, stack_ip6, stack_ip6, &peer_mac);
  low_hop[7] = 64;
  inject6(low_hop);
  Bytes zero_option = ns(peer_ip6, stack_ip6, stack_ip6, &peer_mac);
  zero_option[40 + 25] = 0;  // option length 0
  ::net::wire::icmp6_fill_checksum(&zero_option[40], zero_option.size() - 40, peer_ip6, stack_ip6);
  inject6(zero_option);
  inject6(ns(peer_ip6, stack_ip6, ip6a::all_nodes(), &peer_mac));  // a group target
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(link_counters().ndp.drop_not_our_target, 1u);
  EXPECT_EQ(icmp6_counters().drop_bad_nd, 1u);
  EXPECT_EQ(link_counters().ndp.drop_bad_format, 2u);
}

TEST_F(NdpTest, DuplicateAddressDetectionForOurAddressIsDefended) {  // §7.2.4
  inject6(ns(Ip6{}, ip6a::solicited_node(stack_ip6), stack_ip6, nullptr), solicited_mac);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  expect_advertisement(nic.pop(), ip6a::all_nodes(), ip6a::multicast_mac(ip6a::all_nodes()),
                       stack_ip6, 0x20);  // O only
  EXPECT_EQ(link_counters().ndp.address_conflicts, 1u);
}

TEST_F(NdpTest, NeighbourIsResolvedBeforeSending) {
  const Ip6 other = ip6_of("fd00::5");
  const Mac other_mac{{0x02, 0, 0, 0, 0, 5}};
  EXPECT_EQ(send6(other), ::net::Status::ok);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  // §7.2.2: to the solicited-node group, from our link-local address.
  Ip6 group = ip6a::solicited_node(other);
  EXPECT_EQ(sent_ethernet(f),
            (EthernetRepr{ip6a::multicast_mac(group), stack_mac, ::net::wire::ethertype_ip6}));
  EXPECT_EQ(sent_ip6(f), (Ip6Repr{stack_link_local, group, 58, 255, 32}));
  EXPECT_EQ(sent_icmp6(f),
            icmp6(stack_link_local, group, 135, 0, 0, nd_body(other, 1, &stack_mac)));
  EXPECT_EQ(ndp(stack).state(other), Ndp::State::incomplete);
  // The solicited answer releases the queued datagram.
  inject6(na(other, stack_link_local, other, 0x60, &other_mac));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_ethernet(nic.pop()).dst, other_mac);
  EXPECT_EQ(ndp(stack).state(other), Ndp::State::reachable);
  // REACHABLE_TIME later it is STALE; used, a unicast probe follows after
  // DELAY_FIRST_PROBE_TIME (§7.3.3).
  advance(31s);
  EXPECT_EQ(ndp(stack).state(other), Ndp::State::stale);
  EXPECT_EQ(send6(other), ::net::Status::ok);
  EXPECT_EQ(sent_ethernet(nic.pop()).dst, other_mac);  // sent at once
  advance(5s);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes probe = nic.pop();
  EXPECT_EQ(sent_ethernet(probe).dst, other_mac);
  EXPECT_EQ(sent_ip6(probe).dst, other);
  EXPECT_EQ(ndp(stack).state(other), Ndp::State::probe);
  // Unanswered, the entry goes after MAX_UNICAST_SOLICIT probes.
  advance(1s);
  advance(1s);
  advance(1s);
  EXPECT_EQ(ndp(stack).state(other), std::nullopt);
  EXPECT_EQ(link_counters().ndp.drop_unreachable, 1u);
}

TEST_F(NdpTest, UnansweredResolutionGivesUpAfterThreeSolicitations) {
  const Ip6 silent = ip6_of("fd00::6");
  for (int i = 0; i < 20; ++i) send6(silent);
  EXPECT_EQ(link_counters().ndp.queued, Ndp::max_queued_per_entry);
  EXPECT_EQ(link_counters().ndp.drop_queue_full, 20 - Ndp::max_queued_per_entry);
  EXPECT_EQ(nic.transmitted.size(), 1u);
  advance(1s);
  advance(1s);
  EXPECT_EQ(nic.transmitted.size(), 3u);
  advance(1s);
  EXPECT_EQ(nic.transmitted.size(), 3u);
  EXPECT_EQ(link_counters().ndp.drop_unresolved, Ndp::max_queued_per_entry);
  EXPECT_EQ(ndp(stack).cache_size(), 1u);  // the peer's entry only
}

TEST_F(NdpTest, AdvertisementsNeverCreateEntries) {  // §7.2.5
  const Mac other_mac{{0x02, 0, 0, 0, 0, 8}};
  inject6(na(ip6_of("fd00::8"), ip6a::all_nodes(), ip6_of("fd00::8"), 0x20, &other_mac),
          ip6a::multicast_mac(ip6a::all_nodes()));
  EXPECT_EQ(link_counters().ndp.drop_no_entry, 1u);
  EXPECT_EQ(ndp(stack).cache_size(), 1u);
  // One claiming our address is a conflict, and changes nothing.
  inject6(na(peer_ip6, ip6a::all_nodes(), stack_ip6, 0x20, &other_mac),
          ip6a::multicast_mac(ip6a::all_nodes()));
  EXPECT_EQ(link_counters().ndp.address_conflicts, 1u);
}

TEST_F(NdpTest, SolicitationFloodKeepsTheCacheBounded) {
  for (int i = 0; i < 2000; ++i) {
    Ip6 source = ip6_of("fd00::1:0");
    source.bytes[14] = uint8_t(i >> 8);
    source.bytes[15] = uint8_t(i);
    Mac mac{{0x02, 1, 0, 0, uint8_t(i >> 8), uint8_t(i)}};
    inject6(ns(source, ip6a::solicited_node(stack_ip6), stack_ip6, &mac), solicited_mac);
  }
  EXPECT_EQ(ndp(stack).cache_size(), Ndp::max_entries);
  EXPECT_GT(link_counters().ndp.cache_evictions, 1700u);
  EXPECT_EQ(link_counters().ndp.tx_advertisements, 2001u);  // (one in SetUp)
  EXPECT_EQ(nic.pool().available(), nic.pool().count());    // nothing held
}

TEST_F(NdpTest, NewAddressIsTentativeUntilDetectionEnds) {  // RFC 4862 §5.4
  const Ip6 fresh = ip6_of("fd00::3");
  iface.configure6(fresh, 64);
  drop_mld(nic.transmitted);  // (mld_test.cpp)
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  Ip6 group = ip6a::solicited_node(fresh);
  EXPECT_EQ(sent_ethernet(f).dst, ip6a::multicast_mac(group));
  EXPECT_EQ(sent_ip6(f), (Ip6Repr{Ip6{}, group, 58, 255, 24}));  // from ::, no MAC option
  EXPECT_EQ(sent_icmp6(f), icmp6(Ip6{}, group, 135, 0, 0, nd_body(fresh, 1, nullptr)));
  EXPECT_EQ(iface.address6(), Ip6{});
  inject6(ip6(peer_ip6, fresh, 58, echo6(fresh)));  // not ours yet
  EXPECT_TRUE(nic.transmitted.empty());
  advance(1s);
  drop_mld(nic.transmitted);
  EXPECT_EQ(iface.address6(), fresh);
  inject6(ip6(peer_ip6, fresh, 58, echo6(fresh)));
  EXPECT_EQ(nic.transmitted.size(), 1u);
}

TEST_F(NdpTest, DuplicateAddressIsGivenUp) {
  const Ip6 taken = ip6_of("fd00::4");
  const Mac owner{{0x02, 0, 0, 0, 0, 4}};
  iface.configure6(taken, 64);
  nic.transmitted.clear();
  inject6(na(taken, ip6a::all_nodes(), taken, 0x20, &owner),
          ip6a::multicast_mac(ip6a::all_nodes()));
  advance(2s);
  EXPECT_EQ(iface.address6(), Ip6{});
  EXPECT_EQ(link_counters().ndp.address_conflicts, 1u);
  // Another node detecting the same address at the same time: a duplicate too.
  iface.configure6(taken, 64);
  inject6(ns(Ip6{}, ip6a::solicited_node(taken), taken, nullptr),
          ip6a::multicast_mac(ip6a::solicited_node(taken)));
  advance(2s);
  EXPECT_EQ(iface.address6(), Ip6{});
  EXPECT_EQ(link_counters().ndp.address_conflicts, 2u);
}

TEST_F(NdpTest, OnlyOurGroupsPassTheLink) {
  // A solicited-node group not ours: the frame is not for us.
  Ip6 other = ip6_of("fd00::99");
  inject6(ns(peer_ip6, ip6a::solicited_node(other), other, &peer_mac),
          ip6a::multicast_mac(ip6a::solicited_node(other)));
  EXPECT_EQ(link_counters().ethernet.drop_not_for_us, 1u);
  EXPECT_TRUE(nic.transmitted.empty());
}

}  // namespace
}  // namespace keel::test
