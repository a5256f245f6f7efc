// IPv6 in the rule language: address text forms, rules of one family or both, ICMPv6 by name,
// and what the classifier answers for IPv6 packets (docs/decisions/0138).
#include <gtest/gtest.h>

#include "lang/address6.hpp"
#include "test_helpers.hpp"

namespace keel::firewall::testing {
namespace {

Address6 parse(std::string_view text) {
  std::string error;
  std::optional<Address6> a = parse_address6(text, error);
  EXPECT_TRUE(a) << text << ": " << error;
  return a.value_or(0);
}

Packet ip6_packet(Address6 src, Address6 dst, uint8_t proto = kProtoTcp, uint16_t dport = 0) {
  Packet p;
  p.family = kFamilyIp6;
  p.saddr = address6_word(src, 0);
  p.daddr = address6_word(dst, 0);
  for (int w = 1; w < 4; ++w) {
    p.saddr6[w - 1] = address6_word(src, w);
    p.daddr6[w - 1] = address6_word(dst, w);
  }
  p.proto = proto;
  p.dport = dport;
  return p;
}

Action forward(const Classifier& c, const Packet& p) {
  return c.classify(ChainKind::filter, Hook::forward, p).action;
}

TEST(Ip6, TextFormsOfRfc4291) {
  EXPECT_EQ(parse("2001:db8:0:0:1:0:0:1"), address6_from_words(0x20010db8, 0, 0x10000, 1));
  EXPECT_EQ(parse("2001:DB8::1:0:0:1"), address6_from_words(0x20010db8, 0, 0x10000, 1));
  EXPECT_EQ(parse("::"), Address6{0});
  EXPECT_EQ(parse("::1"), Address6{1});
  EXPECT_EQ(parse("fe80::"), address6_from_words(0xfe800000, 0, 0, 0));
  EXPECT_EQ(parse("::ffff:192.0.2.1"), address6_from_words(0, 0, 0xffff, 0xc0000201));
  EXPECT_EQ(parse("1:2:3:4:5:6:7::"), address6_from_words(0x10002, 0x30004, 0x50006, 0x70000));
  std::string error;
  for (const char* bad : {"1::2::3", "1:2:3:4:5:6:7:8:9", "12345::", ":1::", "1:2:3:4:5:6:7",
                          "::1.2.3", "g::", "1::2:3:4:5:6:7:8"}) {
    EXPECT_FALSE(parse_address6(bad, error)) << bad;
  }
}

TEST(Ip6, CanonicalTextOfRfc5952) {
  EXPECT_EQ(address6_text(parse("2001:0db8:0000:0000:0000:0000:0000:0001")), "2001:db8::1");
  EXPECT_EQ(address6_text(parse("2001:db8:0:0:1:0:0:1")), "2001:db8::1:0:0:1");     // first run
  EXPECT_EQ(address6_text(parse("2001:db8:0:1:1:1:1:1")), "2001:db8:0:1:1:1:1:1");  // not one 0
  EXPECT_EQ(address6_text(0), "::");
  EXPECT_EQ(address6_text(1), "::1");
  EXPECT_EQ(address6_text(parse("fe80::")), "fe80::");
}

// Word boxes: a prefix is one, a range at most seven (its ends' tails and the words between).
TEST(Ip6, RangesBecomeWordBoxes) {
  auto boxes = [](Address6 lo, Address6 hi) { return word_cubes_of({{lo, hi}}); };
  std::vector<WordCube> b =
      boxes(parse("2001:db8:1::"), parse("2001:db8:1:ffff:ffff:ffff:ffff:ffff"));
  ASSERT_EQ(b.size(), 1u);  // the /48
  EXPECT_EQ(b[0].count, 2);
  EXPECT_EQ(b[0].word[0].lo, 0x20010db8u);
  EXPECT_EQ(b[0].word[1].lo, 0x00010000u);
  EXPECT_EQ(b[0].word[1].hi, 0x0001ffffu);
  b = boxes(parse("2001:db8::5"), parse("2001:db8::9"));
  ASSERT_EQ(b.size(), 1u);  // word 3 in [5, 9]
  EXPECT_EQ(b[0].count, 4);
  EXPECT_EQ(b[0].word[3].lo, 5u);
  EXPECT_EQ(b[0].word[3].hi, 9u);
  // From ::1:0:0:5 to ::3:0:0:2: word 1 = 1 with the tail from 0:5, word 1 = 2 whole, word 1 =
  // 3 with the tail up to 0:2 (each tail a box per word: 0:5-0:ffffffff is word 2 = 0 and word
  // 3 >= 5, then word 2 >= 1).
  b = boxes(parse("0:0:0:1:0:0:0:5"), parse("0:0:0:3:0:0:0:2"));
  EXPECT_LE(b.size(), 7u);
  RangeSet6 covered;
  for (const WordCube& c : b) {
    uint32_t lo[4] = {}, hi[4] = {~0u, ~0u, ~0u, ~0u};
    for (int w = 0; w < c.count; ++w) lo[w] = c.word[w].lo, hi[w] = c.word[w].hi;
    covered.push_back({address6_from_words(lo[0], lo[1], lo[2], lo[3]),
                       address6_from_words(hi[0], hi[1], hi[2], hi[3])});
  }
  normalize6(covered);
  ASSERT_EQ(covered.size(), 1u);
  EXPECT_EQ(covered[0].lo, parse("0:0:0:1:0:0:0:5"));
  EXPECT_EQ(covered[0].hi, parse("0:0:0:3:0:0:0:2"));
  ASSERT_EQ(boxes(0, kMaxAddress6).size(), 1u);
  EXPECT_EQ(boxes(0, kMaxAddress6)[0].count, 0);  // everything: no word tested
}

TEST(Ip6, PrefixesOnEveryWordBoundary) {
  Classifier c = classifier_for(R"(chain f hook forward policy accept {
      ip6 saddr 2001:db8:1::/48 drop
      ip6 daddr 2001:db8:0:0:8000::/65 reject
      ip6 daddr ::ffff:10.0.0.0/104 drop
    })");
  const Address6 outside = parse("2001:db8:2::1");
  EXPECT_EQ(forward(c, ip6_packet(parse("2001:db8:1:ffff::9"), outside)), Action::drop);
  EXPECT_EQ(forward(c, ip6_packet(parse("2001:db8:2::"), outside)), Action::accept);
  EXPECT_EQ(forward(c, ip6_packet(outside, parse("2001:db8::8000:0:0:1"))), Action::reject);
  EXPECT_EQ(forward(c, ip6_packet(outside, parse("2001:db8::7fff:0:0:1"))), Action::accept);
  EXPECT_EQ(forward(c, ip6_packet(outside, parse("::ffff:10.9.9.9"))), Action::drop);
  EXPECT_EQ(forward(c, ip6_packet(outside, parse("::ffff:11.0.0.0"))), Action::accept);
}

TEST(Ip6, RulesApplyToTheirFamily) {
  Classifier c = classifier_for(R"(chain f hook forward policy accept {
      ip saddr 0.0.0.0/1 drop
      icmp type echo-request reject
      ttl 64 drop
      ip6 daddr ::/1 reject
      tcp dport 22 drop
    })");
  // IPv6 packets: word 0 of the source (0x20010db8 < 2^31) is no IPv4 address, ICMPv6 is not
  // ICMP, ttl is an IPv4 field; the port rule takes both families.
  const Address6 high = parse("8000::1");
  Packet icmp6 = ip6_packet(parse("2001:db8::1"), high, kProtoIcmp6);
  icmp6.icmp_type = 8;
  EXPECT_EQ(forward(c, icmp6), Action::accept);
  EXPECT_EQ(forward(c, ip6_packet(parse("2001:db8::1"), high, kProtoTcp, 22)), Action::drop);
  EXPECT_EQ(forward(c, ip6_packet(parse("2001:db8::1"), parse("::2"))), Action::reject);
  Packet v4;
  v4.saddr = 0x80000001;
  v4.daddr = 0x00000001;  // would be in ::/1 if it were IPv6
  v4.ttl = 63;
  EXPECT_EQ(forward(c, v4), Action::accept);
  v4.dport = 22;
  v4.proto = kProtoTcp;
  EXPECT_EQ(forward(c, v4), Action::drop);
}

TEST(Ip6, Icmp6TypesAndCodesByNameAndNumber) {
  Classifier c = classifier_for(R"(chain f hook forward policy drop {
      icmpv6 type { echo-request, 129 } accept
      icmpv6 type destination-unreachable icmpv6 code { no-route, port-unreachable } accept
      icmpv6 type nd-neighbor-solicit reject
    })");
  Packet p = ip6_packet(parse("fe80::1"), parse("fe80::2"), kProtoIcmp6);
  for (uint8_t type : {128, 129}) {
    p.icmp_type = type;
    EXPECT_EQ(forward(c, p), Action::accept) << int{type};
  }
  p.icmp_type = 1;
  p.icmp_code = 4;
  EXPECT_EQ(forward(c, p), Action::accept);
  p.icmp_code = 1;
  EXPECT_EQ(forward(c, p), Action::drop);
  p.icmp_type = 135;
  p.icmp_code = 0;
  EXPECT_EQ(forward(c, p), Action::reject);
}

TEST(Ip6, NegationCoversTheOtherFamily) {
  // "ip6 saddr != X" needs an IPv6 packet; "not ip6 saddr X" is true for IPv4 too.
  Classifier ne = classifier_for("chain f hook forward { ip6 saddr != fd00::/8 drop }");
  Classifier no = classifier_for("chain f hook forward { not ip6 saddr fd00::/8 drop }");
  Packet v4;
  EXPECT_EQ(forward(ne, v4), Action::accept);
  EXPECT_EQ(forward(no, v4), Action::drop);
  Packet inside = ip6_packet(parse("fd12::1"), 1), outside = ip6_packet(parse("fe12::1"), 1);
  EXPECT_EQ(forward(ne, inside), Action::accept);
  EXPECT_EQ(forward(ne, outside), Action::drop);
  EXPECT_EQ(forward(no, inside), Action::accept);
  EXPECT_EQ(forward(no, outside), Action::drop);
}

TEST(Ip6, NatChainsLeaveIp6Alone) {
  Classifier c =
      classifier_for("chain n type nat hook prerouting { tcp dport 80 dnat to 10.0.0.2 }");
  Packet v6 = ip6_packet(parse("2001:db8::1"), parse("2001:db8::2"), kProtoTcp, 80);
  EXPECT_EQ(c.classify(ChainKind::nat, Hook::prerouting, v6).rule, kNoRule);
  Packet v4;
  v4.proto = kProtoTcp;
  v4.dport = 80;
  EXPECT_EQ(c.classify(ChainKind::nat, Hook::prerouting, v4).action, Action::dnat);
}

TEST(Ip6, AddressListsAndNamedValues) {
  Classifier c = classifier_for(R"(define trusted = { 2001:db8:a::/48, 2001:db8:b::7 }
    chain f hook forward policy drop { ip6 saddr $trusted accept })");
  EXPECT_EQ(forward(c, ip6_packet(parse("2001:db8:a:1::1"), 1)), Action::accept);
  EXPECT_EQ(forward(c, ip6_packet(parse("2001:db8:b::7"), 1)), Action::accept);
  EXPECT_EQ(forward(c, ip6_packet(parse("2001:db8:b::8"), 1)), Action::drop);
}

// An IPv4 blocklist keeps its pipelined burst path (one exact set; the family dispatch leaves
// the IPv6 partition empty), and an IPv6 packet whose word 0 is a blocked IPv4 address passes.
TEST(Ip6, Ip4BlocklistBurstsLetIp6Through) {
  std::string text = "chain f hook forward policy accept {\n";
  for (uint32_t i = 0; i < 500; ++i) text += "  ip saddr " + ipv4_text(0x0A000000u + i) + " drop\n";
  Classifier c = classifier_for(text + "}\n");
  std::vector<Packet> packets;
  for (uint32_t i = 0; i < 100; ++i) {
    Packet p;
    p.saddr = 0x0A000000u + i * 7;  // blocked below 500
    if (i % 2) {
      p.family = kFamilyIp6;
      p.saddr6[2] = 1;
    }
    packets.push_back(p);
  }
  std::vector<Verdict> burst(packets.size());
  c.classify_burst(ChainKind::filter, Hook::forward, packets, burst);
  for (size_t i = 0; i < packets.size(); ++i) {
    const bool blocked = packets[i].family == kFamilyIp4 && packets[i].saddr < 0x0A000000u + 500;
    EXPECT_EQ(burst[i].action, blocked ? Action::drop : Action::accept) << i;
    EXPECT_EQ(burst[i], c.classify(ChainKind::filter, Hook::forward, packets[i])) << i;
  }
}

}  // namespace
}  // namespace keel::firewall::testing
