// Parser and lowering: what the language accepts and what it means.
#include <gtest/gtest.h>

#include "lang/ast.hpp"
#include "test_helpers.hpp"

namespace keel::firewall::testing {
namespace {

Packet tcp_packet(uint32_t saddr, uint16_t dport) {
  Packet p;
  p.proto = kProtoTcp;
  p.saddr = saddr;
  p.dport = dport;
  return p;
}

TEST(Language, ParsesAllStatementKinds) {
  CompileResult r = compile_source(R"(
    define ports = { 22, 80-90, 0x1bb }
    define nets = { 10.0.0.0/8, 192.168.1.1-192.168.1.9, 172.16.0.1 }
    interface eth0 { address 10.0.0.1/24 gateway 10.0.0.254 vlan 12 }
    interface eth1 { dhcp; netmask 255.255.0.0 }
    route 0.0.0.0/0 via 10.0.0.254 dev eth0 metric 5
    conntrack on
    chain in hook input policy drop {
      ct state established,related accept;
      iif eth0 ip saddr $nets tcp dport $ports accept
      (udp dport 53 or icmp type 8 icmp code 0) and not ip saddr 10.1.0.0/16 accept
      tcp flags syn,!ack ttl < 5 length 0-100 log prefix "odd" rate 3/second drop
      jump more
    }
    chain more { protocol { tcp, 47 } reject }
    chain dn type nat hook prerouting { tcp dport 8080 dnat to 10.0.0.2:80 }
    chain sn type nat hook postrouting { oif eth1 snat to 1.2.3.4:1000-2000  masquerade }
  )",
                                   "t.fw");
  ASSERT_TRUE(r.ruleset) << r.errors.front();
  EXPECT_EQ(r.ruleset->chains.size(), 3u);
  EXPECT_EQ(r.ruleset->interfaces.size(), 2u);
  EXPECT_EQ(r.ruleset->interfaces[0].netmask, 0xFFFFFF00u);
  EXPECT_EQ(r.ruleset->interfaces[0].vlan, 12);
  EXPECT_TRUE(r.ruleset->interfaces[1].dhcp);
  ASSERT_EQ(r.ruleset->routes.size(), 1u);
  EXPECT_EQ(r.ruleset->routes[0].metric, 5u);
  EXPECT_EQ(r.ruleset->chains[0].rules.size(), 5u);  // the jump inlines one rule
  EXPECT_EQ(r.ruleset->chains[0].rules[3].log_rate_per_minute, 180);
}

TEST(Language, FirstMatchWins) {
  Classifier c = classifier_for(R"(chain f hook forward policy drop {
      ip saddr 10.0.0.0/8 tcp dport 22 drop
      ip saddr 10.0.0.0/8 accept
    })");
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::forward, tcp_packet(0x0A000001, 22)).action,
            Action::drop);
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::forward, tcp_packet(0x0A000001, 80)).action,
            Action::accept);
  Verdict policy = c.classify(ChainKind::filter, Hook::forward, tcp_packet(0x0B000001, 80));
  EXPECT_EQ(policy.action, Action::drop);
  EXPECT_EQ(policy.rule, kNoRule);
}

TEST(Language, NegatedPortMatchNeedsTheProtocol) {
  // Like nftables: "tcp dport != 22" is false for UDP; "not tcp dport 22" is true for UDP.
  Classifier ne = classifier_for("chain f hook input { tcp dport != 22 drop }");
  Classifier no = classifier_for("chain f hook input { not tcp dport 22 drop }");
  Packet udp;
  udp.proto = kProtoUdp;
  udp.dport = 80;
  EXPECT_EQ(ne.classify(ChainKind::filter, Hook::input, udp).action, Action::accept);
  EXPECT_EQ(no.classify(ChainKind::filter, Hook::input, udp).action, Action::drop);
}

TEST(Language, ComparisonsBecomeRanges) {
  Classifier c = classifier_for("chain f hook input { ttl < 2 drop  length >= 1000 reject }");
  Packet p;
  p.ttl = 1;
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::drop);
  p.ttl = 2;
  p.length = 999;
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::accept);
  p.length = 1000;
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::reject);
}

TEST(Language, ListFileLoadsOneEntryPerLine) {
  CompileResult r = compile_file(std::string(KEEL_FIREWALL_EXAMPLES) + "/blocklist.fw");
  ASSERT_TRUE(r.ruleset) << r.errors.front();
  Classifier c;
  ASSERT_EQ(c.adopt(build_tables(*r.ruleset)), LoadStatus::ok);
  Packet p;
  p.saddr = 0xC6336407;  // 198.51.100.7 inside 198.51.100.0/24
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::drop);
  p.saddr = 0xCB007107;  // 203.0.113.7 inside the range
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::drop);
  p.saddr = 0xCB00710A;
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::accept);
}

TEST(Language, ExamplesCompile) {
  for (const char* name : {"port-filter.fw", "blocklist.fw", "gateway-nat.fw", "dual-stack.fw"}) {
    CompileResult r = compile_file(std::string(KEEL_FIREWALL_EXAMPLES) + "/" + name);
    EXPECT_TRUE(r.ruleset) << name << ": " << (r.errors.empty() ? "" : r.errors.front());
  }
}

TEST(Language, LargeRunBecomesOneSetTable) {
  std::string text = "chain f hook input {\n";
  for (int i = 0; i < 1000; ++i)
    text +=
        "  ip saddr 10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256) + " drop\n";
  text += "}\n";
  CompileResult r = compile_source(text, "t.fw");
  ASSERT_TRUE(r.ruleset);
  BuildStats stats;
  Tables t = build_tables(*r.ruleset, &stats);
  EXPECT_EQ(stats.set_tables, 1u);
  EXPECT_EQ(stats.tuple_tables, 0u);
  EXPECT_EQ(t.sets[0].kind, SetKind::exact_hash);
}

}  // namespace
}  // namespace keel::firewall::testing
