// nftables exporter: text for each kind of match and the protocol split.
#include <gtest/gtest.h>

#include "test_helpers.hpp"

namespace keel::firewall::testing {
namespace {

std::string nft(const std::string& text) {
  CompileResult r = compile_source(text, "t.fw");
  EXPECT_TRUE(r.ruleset) << (r.errors.empty() ? "" : r.errors[0]);
  return r.ruleset ? export_nft(*r.ruleset) : "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Exporter, ChainHeaderAndPolicy) {
  std::string out = nft("chain f hook forward policy drop { }");
  EXPECT_TRUE(has(out, "table ip keel\ndelete table ip keel\ntable ip keel {"));
  EXPECT_TRUE(has(out, "chain f {\n    type filter hook forward priority 0; policy drop;\n  }"));
}

TEST(Exporter, Matches) {
  std::string out = nft(R"(interface e0 { } interface e1 { }
    chain f hook forward {
      iif e0 oif != e1 ip saddr 10.0.0.0/24 ip daddr { 1.2.3.4, 1.2.3.6-1.2.3.9 } ttl 1-5 length > 1000 accept
      ct state new,invalid drop
      icmp type 8 drop
    })");
  EXPECT_TRUE(
      has(out,
          "iifname { \"e0\" } oifname != { \"e1\" } ip saddr { 10.0.0.0-10.0.0.255 } "
          "ip daddr { 1.2.3.4, 1.2.3.6-1.2.3.9 } ip ttl { 1-5 } ip length { 1001-65535 } accept"))
      << out;
  EXPECT_TRUE(has(out, "ct state { new, invalid } drop")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 1 } icmp type { 8 } drop")) << out;
}

TEST(Exporter, NegatedPortSplitsByProtocol) {
  // not (tcp and dport 22): non-TCP packets match without reading a port.
  std::string out = nft("chain f hook input { not tcp dport 22 drop }");
  EXPECT_TRUE(has(out, "meta l4proto { 0-5, 7-255 } drop")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 6 } tcp dport { 0-21, 23-65535 } drop")) << out;
}

TEST(Exporter, RateLimitedLogIsSeparateFromTheVerdict) {
  std::string out =
      nft("chain f hook input { tcp dport 23 log rate 2/minute prefix \"telnet\" drop }");
  EXPECT_TRUE(has(out, "tcp dport { 23 } limit rate 2/minute log prefix \"telnet\" \n")) << out;
  EXPECT_TRUE(has(out, "tcp dport { 23 } drop\n")) << out;
}

TEST(Exporter, Nat) {
  std::string out = nft(R"(interface wan { }
    chain p type nat hook prerouting { tcp dport 80 dnat to 10.0.0.2:8080 }
    chain q type nat hook postrouting { oif wan masquerade  snat to 1.1.1.1 })");
  EXPECT_TRUE(has(out, "type nat hook prerouting priority -100; policy accept;")) << out;
  EXPECT_TRUE(has(out, "tcp dport { 80 } dnat to 10.0.0.2:8080")) << out;
  EXPECT_TRUE(has(out, "oifname { \"wan\" } masquerade")) << out;
  EXPECT_TRUE(has(out, "    snat to 1.1.1.1\n")) << out;
}

TEST(Exporter, NatPortsOnlyWhereTheProtocolHasPorts) {
  // nft refuses a port mapping without a TCP or UDP match, so a rule with a port target splits
  // per protocol class: TCP and UDP get the ports, other protocols the address alone.
  std::string out =
      nft("chain p type nat hook prerouting { ip daddr 10.1.0.0/24 dnat to 10.1.1.5:1000-2000 }");
  const std::string daddr = "ip daddr { 10.1.0.0-10.1.0.255 } ";
  EXPECT_TRUE(has(out, "meta l4proto { 6 } " + daddr + "dnat to 10.1.1.5:1000-2000\n")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 17 } " + daddr + "dnat to 10.1.1.5:1000-2000\n")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 1 } " + daddr + "dnat to 10.1.1.5\n")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 0, 2-5, 7-16, 18-255 } " + daddr + "dnat to 10.1.1.5\n"))
      << out;
  out = nft("chain q type nat hook postrouting { snat to 1.1.1.1:53 }");
  EXPECT_TRUE(has(out, "meta l4proto { 17 } snat to 1.1.1.1:53\n")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 1 } snat to 1.1.1.1\n")) << out;
}

}  // namespace
}  // namespace keel::firewall::testing
