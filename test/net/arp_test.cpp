#include "stack_fixture.hpp"
#include "net/arp.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ArpTest = StackTest;

Bytes arp_frame(uint16_t op, Mac sha, Ip spa, Mac tha, Ip tpa, Mac dst = Mac::broadcast()) {
  return ethernet(dst, sha, 0x0806, arp(op, sha, spa, tha, tpa));
}

TEST_F(ArpTest, RepliesToRequestsForOurAddress) {
  Mac asker{{0x02, 0, 0, 0, 0, 7}};
  nic.inject(arp_frame(1, asker, Ip{10, 0, 0, 7}, Mac{}, stack_ip));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(ethertype(f), 0x0806);
  EXPECT_EQ(Mac::from(&f[0]), asker);
  EXPECT_EQ(keel::net::load16(&f[14 + 6]), 2);  // reply
  EXPECT_EQ(Mac::from(&f[14 + 8]), stack_mac);
  EXPECT_EQ(Ip::from_bytes(&f[14 + 14]), stack_ip);
  EXPECT_EQ(counters().arp.tx_replies, 2u);  // the fixture's peer and this one
}

TEST_F(ArpTest, IgnoresRequestsForOthers) {
  nic.inject(arp_frame(1, Mac{{2, 0, 0, 0, 0, 7}}, Ip{10, 0, 0, 7}, Mac{}, Ip{10, 0, 0, 99}));
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(ArpTest, GratuitousOnConfigure) {
  stack.configure(Ip{10, 0, 0, 3}, ::net::ip4::netmask_of(24));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_TRUE(Mac::from(&f[0]).is_broadcast());
  EXPECT_EQ(Ip::from_bytes(&f[14 + 14]), (Ip{10, 0, 0, 3}));
  EXPECT_EQ(Ip::from_bytes(&f[14 + 24]), (Ip{10, 0, 0, 3}));
  EXPECT_EQ(counters().arp.tx_gratuitous, 2u);
}

TEST_F(ArpTest, QueuesUntilResolvedThenSends) {
  Ip other{10, 0, 0, 9};
  Mac other_mac{{0x02, 0, 0, 0, 0, 9}};
  EXPECT_EQ(stack.udp().sendto(other, 9, "a", 1), ::net::Status::ok);
  EXPECT_EQ(stack.udp().sendto(other, 9, "b", 1), ::net::Status::ok);
  ASSERT_EQ(nic.transmitted.size(), 1u);  // one request for two packets
  Bytes req = nic.pop();
  EXPECT_EQ(ethertype(req), 0x0806);
  EXPECT_EQ(Ip::from_bytes(&req[14 + 24]), other);
  nic.inject(arp_frame(2, other_mac, other, stack_mac, stack_ip, stack_mac));
  ASSERT_EQ(nic.transmitted.size(), 2u);
  EXPECT_EQ(Mac::from(&nic.transmitted[0][0]), other_mac);
  EXPECT_EQ(counters().arp.queued, 2u);
}

TEST_F(ArpTest, UnresolvedPacketsAreDroppedAfterRetries) {
  Ip nobody{10, 0, 0, 77};
  stack.udp().sendto(nobody, 9, "a", 1);
  advance(10s);
  EXPECT_EQ(counters().arp.tx_requests, 3u);  // RFC 1122: a few, 1 per second
  EXPECT_EQ(counters().arp.drop_unresolved, 1u);
}

TEST_F(ArpTest, QueueIsBounded) {
  for (int i = 0; i < 100; ++i) stack.udp().sendto(Ip{10, 0, 0, 77}, 9, "a", 1);
  EXPECT_EQ(counters().arp.queued, ::keel::net::Arp::max_queued_per_entry);
  EXPECT_EQ(counters().arp.drop_queue_full, 100 - ::keel::net::Arp::max_queued_per_entry);
  std::size_t held = nic.pool().count() - nic.pool().available();
  EXPECT_LE(held, ::keel::net::Arp::max_queued_total);
  advance(10s);
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
}

TEST_F(ArpTest, EntriesExpire) {
  advance(61s);
  stack.udp().sendto(peer_ip, 9, "a", 1);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(ethertype(nic.pop()), 0x0806);  // asks again
}

TEST_F(ArpTest, UnsolicitedRepliesDoNotPoisonTheCache) {
  Mac attacker{{0x02, 0xba, 0xd0, 0, 0, 1}};
  Ip victim{10, 0, 0, 50};
  nic.inject(arp_frame(2, attacker, victim, stack_mac, stack_ip, stack_mac));
  stack.udp().sendto(victim, 9, "a", 1);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(ethertype(nic.pop()), 0x0806);  // still resolving, not sent to the attacker
}

TEST_F(ArpTest, RapidMacChangesAreRateLimited) {
  Mac attacker{{0x02, 0xba, 0xd0, 0, 0, 1}};
  nic.inject(arp_frame(2, attacker, peer_ip, stack_mac, stack_ip, stack_mac));
  EXPECT_EQ(counters().arp.drop_rate_limited, 1u);
  stack.udp().sendto(peer_ip, 9, "a", 1);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(Mac::from(&nic.transmitted[0][0]), peer_mac);
  // A genuine change later is accepted.
  advance(2s);
  nic.inject(arp_frame(2, attacker, peer_ip, stack_mac, stack_ip, stack_mac));
  nic.transmitted.clear();
  stack.udp().sendto(peer_ip, 9, "a", 1);
  EXPECT_EQ(Mac::from(&nic.transmitted[0][0]), attacker);
}

TEST_F(ArpTest, SpoofStormIsBoundedAndCounted) {
  for (uint32_t i = 0; i < 20000; ++i) {
    Mac m{{0x02, 0xee, uint8_t(i >> 16), uint8_t(i >> 8), uint8_t(i), 1}};
    Ip ip{0x0a000000u + (i % 65000) + 3};
    nic.inject(arp_frame(i % 2 ? 1 : 2, m, ip, Mac{}, i % 3 ? stack_ip : Ip{10, 0, 0, 99}));
    nic.inject(arp_frame(2, m, stack_ip, Mac{}, stack_ip));  // claims our address
    nic.inject(arp_frame(1, Mac::broadcast(), ip, Mac{}, stack_ip));  // bogus sender
    nic.transmitted.clear();
  }
  EXPECT_EQ(counters().arp.address_conflicts, 20000u);
  EXPECT_EQ(counters().arp.drop_bad_sender, 20000u);
  EXPECT_GT(counters().arp.cache_evictions, 0u);
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
}

TEST_F(ArpTest, MalformedPacketsAreCounted) {
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0806, Bytes(27)));
  Bytes bad = arp(1, peer_mac, peer_ip, Mac{}, stack_ip);
  bad[4] = 8;  // hardware length
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0806, bad));
  bad = arp(3, peer_mac, peer_ip, Mac{}, stack_ip);  // RARP opcode
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0806, bad));
  EXPECT_EQ(counters().arp.drop_truncated, 1u);
  EXPECT_EQ(counters().arp.drop_bad_format, 2u);
  EXPECT_TRUE(nic.transmitted.empty());
}

}  // namespace
}  // namespace keel::test
