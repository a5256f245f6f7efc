// ARP (RFC 826) on one interface: replies, announcements, resolution with
// its queue and retries on the stack's clock, and the cache's defences.
#include "net/link/arp.hpp"

#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Arp;
using ::net::wire::ArpRepr;
using ::net::wire::EthernetRepr;
using ::net::wire::ethertype_arp;
using ::net::wire::ethertype_ip4;

using ArpTest = StackTest;

Bytes arp_frame(uint16_t op, Mac sha, Ip spa, Mac tha, Ip tpa, Mac dst = Mac::broadcast()) {
  return ethernet(dst, sha, 0x0806, arp(op, sha, spa, tha, tpa));
}

// What the stack sends to resolve `target`.
ArpRepr request_for(Ip target, Ip sender = stack_ip) {
  return {ArpRepr::request, stack_mac, sender, Mac{}, target};
}

TEST_F(ArpTest, RepliesToRequestsForOurAddress) {
  Mac asker{{0x02, 0, 0, 0, 0, 7}};
  nic.inject(arp_frame(1, asker, Ip{10, 0, 0, 7}, Mac{}, stack_ip));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(sent_ethernet(f), (EthernetRepr{asker, stack_mac, ethertype_arp}));
  EXPECT_EQ(sent_arp(f), (ArpRepr{ArpRepr::reply, stack_mac, stack_ip, asker, Ip{10, 0, 0, 7}}));
  EXPECT_EQ(link_counters().arp.tx_replies, 2u);  // the fixture's peer and this one
}

TEST_F(ArpTest, IgnoresRequestsForOthers) {
  nic.inject(arp_frame(1, Mac{{2, 0, 0, 0, 0, 7}}, Ip{10, 0, 0, 7}, Mac{}, Ip{10, 0, 0, 99}));
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(ArpTest, GratuitousOnConfigure) {  // RFC 5227 §3
  iface.configure(Ip{10, 0, 0, 3}, ::net::ip4::netmask_of(24));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(sent_ethernet(f), (EthernetRepr{Mac::broadcast(), stack_mac, ethertype_arp}));
  EXPECT_EQ(sent_arp(f), request_for(Ip{10, 0, 0, 3}, Ip{10, 0, 0, 3}));
  EXPECT_EQ(link_counters().arp.tx_gratuitous, 2u);
}

TEST_F(ArpTest, QueuesUntilResolvedThenSends) {
  Ip other{10, 0, 0, 9};
  Mac other_mac{{0x02, 0, 0, 0, 0, 9}};
  EXPECT_EQ(send(other, 9, "a"), ::net::Status::ok);
  EXPECT_EQ(send(other, 9, "b"), ::net::Status::ok);
  ASSERT_EQ(nic.transmitted.size(), 1u);  // one request for two packets
  Bytes req = nic.pop();
  EXPECT_EQ(sent_ethernet(req), (EthernetRepr{Mac::broadcast(), stack_mac, ethertype_arp}));
  EXPECT_EQ(sent_arp(req), request_for(other));
  nic.inject(arp_frame(2, other_mac, other, stack_mac, stack_ip, stack_mac));
  ASSERT_EQ(nic.transmitted.size(), 2u);
  for (const Bytes& f : nic.transmitted) {
    EXPECT_EQ(sent_ethernet(f), (EthernetRepr{other_mac, stack_mac, ethertype_ip4}));
  }
  EXPECT_EQ(sent_payload(nic.transmitted[0]).back(), 'a');  // in the order sent
  EXPECT_EQ(sent_payload(nic.transmitted[1]).back(), 'b');
  EXPECT_EQ(link_counters().arp.queued, 2u);
}

// RFC 1122 §2.3.2.1: at most one request per second, a few times, then
// the queued packets are dropped and counted. Time is the stack's clock.
TEST_F(ArpTest, RetriesFollowTheClockThenGiveUp) {
  Ip nobody{10, 0, 0, 77};
  send(nobody, 9);
  EXPECT_EQ(link_counters().arp.tx_requests, 1u);
  EXPECT_EQ(stack.next_deadline(), 1'000'000'000u);
  advance(999ms);
  EXPECT_EQ(link_counters().arp.tx_requests, 1u);
  advance(1ms);
  EXPECT_EQ(link_counters().arp.tx_requests, 2u);
  advance(1s);
  EXPECT_EQ(link_counters().arp.tx_requests, 3u);
  EXPECT_EQ(link_counters().arp.drop_unresolved, 0u);
  advance(1s);
  EXPECT_EQ(link_counters().arp.tx_requests, 3u);  // Arp::max_requests
  EXPECT_EQ(link_counters().arp.drop_unresolved, 1u);
  for (const Bytes& f : nic.transmitted) EXPECT_EQ(sent_arp(f), request_for(nobody));
  EXPECT_EQ(nic.transmitted.size(), 3u);
  EXPECT_EQ(stack.next_deadline(), ::net::Clock::never);
  advance(10s);
  EXPECT_EQ(link_counters().arp.tx_requests, 3u);
}

TEST_F(ArpTest, QueueIsBounded) {
  for (int i = 0; i < 100; ++i) send(Ip{10, 0, 0, 77}, 9);
  EXPECT_EQ(link_counters().arp.queued, Arp::max_queued_per_entry);
  EXPECT_EQ(link_counters().arp.drop_queue_full, 100 - Arp::max_queued_per_entry);
  std::size_t held = nic.pool().count() - nic.pool().available();
  EXPECT_LE(held, Arp::max_queued_total);
  advance(10s);
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
}

TEST_F(ArpTest, EntriesExpire) {
  advance(61s);
  send(peer_ip, 9);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_arp(nic.pop()), request_for(peer_ip));  // asks again
}

TEST_F(ArpTest, UnsolicitedRepliesDoNotPoisonTheCache) {
  Mac attacker{{0x02, 0xba, 0xd0, 0, 0, 1}};
  Ip victim{10, 0, 0, 50};
  nic.inject(arp_frame(2, attacker, victim, stack_mac, stack_ip, stack_mac));
  send(victim, 9);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_arp(nic.pop()), request_for(victim));  // still resolving, not sent to the attacker
}

TEST_F(ArpTest, RapidMacChangesAreRateLimited) {
  Mac attacker{{0x02, 0xba, 0xd0, 0, 0, 1}};
  nic.inject(arp_frame(2, attacker, peer_ip, stack_mac, stack_ip, stack_mac));
  EXPECT_EQ(link_counters().arp.drop_rate_limited, 1u);
  send(peer_ip, 9);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_ethernet(nic.pop()).dst, peer_mac);
  // A genuine change later is accepted.
  advance(2s);
  nic.inject(arp_frame(2, attacker, peer_ip, stack_mac, stack_ip, stack_mac));
  nic.transmitted.clear();
  send(peer_ip, 9);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_ethernet(nic.pop()).dst, attacker);
}

TEST_F(ArpTest, SpoofStormIsBoundedAndCounted) {
  for (uint32_t i = 0; i < 20000; ++i) {
    Mac m{{0x02, 0xee, uint8_t(i >> 16), uint8_t(i >> 8), uint8_t(i), 1}};
    Ip ip{0x0a000000u + (i % 65000) + 3};
    nic.inject(arp_frame(i % 2 ? 1 : 2, m, ip, Mac{}, i % 3 ? stack_ip : Ip{10, 0, 0, 99}));
    nic.inject(arp_frame(2, m, stack_ip, Mac{}, stack_ip));           // claims our address
    nic.inject(arp_frame(1, Mac::broadcast(), ip, Mac{}, stack_ip));  // bogus sender
    nic.transmitted.clear();
  }
  EXPECT_EQ(link_counters().arp.address_conflicts, 20000u);
  EXPECT_EQ(link_counters().arp.drop_bad_sender, 20000u);
  EXPECT_GT(link_counters().arp.cache_evictions, 0u);
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
}

TEST_F(ArpTest, MalformedPacketsAreCounted) {
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0806, Bytes(27)));
  Bytes bad = arp(1, peer_mac, peer_ip, Mac{}, stack_ip);
  bad[4] = 8;  // hardware length
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0806, bad));
  bad = arp(3, peer_mac, peer_ip, Mac{}, stack_ip);  // RARP opcode
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0806, bad));
  EXPECT_EQ(link_counters().arp.drop_truncated, 1u);
  EXPECT_EQ(link_counters().arp.drop_bad_format, 2u);
  EXPECT_TRUE(nic.transmitted.empty());
}

// A new address forgets the old neighbours (they were on the old subnet).
TEST_F(ArpTest, ReconfiguringToANewAddressClearsTheCache) {
  iface.configure(Ip{10, 0, 0, 3}, ::net::ip4::netmask_of(24));
  nic.transmitted.clear();
  send(peer_ip, 9);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_arp(nic.pop()), request_for(peer_ip, Ip{10, 0, 0, 3}));
}

}  // namespace
}  // namespace keel::test
