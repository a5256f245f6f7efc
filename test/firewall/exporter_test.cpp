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
  EXPECT_TRUE(has(out, "table inet keel\ndelete table inet keel\ntable inet keel {"));
  EXPECT_TRUE(has(out, "chain f {\n    type filter hook forward priority 0; policy drop;\n  }"));
}

TEST(Exporter, Matches) {
  std::string out = nft(R"(interface e0 { } interface e1 { }
    chain f hook forward {
      iif e0 oif != e1 ip saddr 10.0.0.0/24 ip daddr { 1.2.3.4, 1.2.3.6-1.2.3.9 } ttl 1-5 length > 1000 accept
      ct state new,invalid drop
      icmp type 8 drop
    })");
  EXPECT_TRUE(has(
      out,
      "meta nfproto ipv4 iifname { \"e0\" } oifname != { \"e1\" } ip saddr { 10.0.0.0-10.0.0.255 } "
      "ip daddr { 1.2.3.4, 1.2.3.6-1.2.3.9 } ip ttl { 1-5 } ip length { 1001-65535 } accept"))
      << out;
  EXPECT_TRUE(has(out, "ct state { new, invalid } drop")) << out;
  EXPECT_TRUE(has(out, "    ct state { new, invalid } drop")) << out;  // both families
  EXPECT_TRUE(has(out, "meta nfproto ipv4 meta l4proto { 1 } icmp type { 8 } drop")) << out;
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
  EXPECT_TRUE(
      has(out, "meta nfproto ipv4 meta l4proto { 6 } tcp dport { 80 } dnat ip to 10.0.0.2:8080"))
      << out;
  EXPECT_TRUE(has(out, "meta nfproto ipv4 oifname { \"wan\" } masquerade")) << out;
  EXPECT_TRUE(has(out, "    meta nfproto ipv4 snat ip to 1.1.1.1\n")) << out;
}

TEST(Exporter, NatPortsOnlyWhereTheProtocolHasPorts) {
  // nft refuses a port mapping without a TCP or UDP match, so a rule with a port target splits
  // per protocol class: TCP and UDP get the ports, other protocols the address alone.
  std::string out =
      nft("chain p type nat hook prerouting { ip daddr 10.1.0.0/24 dnat to 10.1.1.5:1000-2000 }");
  const std::string daddr = "ip daddr { 10.1.0.0-10.1.0.255 } ";
  EXPECT_TRUE(has(out, "meta l4proto { 6 } " + daddr + "dnat ip to 10.1.1.5:1000-2000\n")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 17 } " + daddr + "dnat ip to 10.1.1.5:1000-2000\n")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 1 } " + daddr + "dnat ip to 10.1.1.5\n")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 0, 2-5, 7-16, 18-255 } " + daddr + "dnat ip to 10.1.1.5\n"))
      << out;
  out = nft("chain q type nat hook postrouting { snat to 1.1.1.1:53 }");
  EXPECT_TRUE(has(out, "meta l4proto { 17 } snat ip to 1.1.1.1:53\n")) << out;
  EXPECT_TRUE(has(out, "meta l4proto { 1 } snat ip to 1.1.1.1\n")) << out;
}

// IPv6: prefixes in the canonical text form (RFC 5952), ICMPv6, and the family of each rule.
TEST(Exporter, Ip6Matches) {
  std::string out = nft(R"(chain f hook forward {
      ip6 saddr 2001:DB8:0:0::/48 ip6 daddr ::1 tcp dport 22 accept
      icmpv6 type echo-request accept
      ip6 saddr 2001:db8::1-2001:db8::2 drop
      tcp dport 80 accept
    })");
  EXPECT_TRUE(has(out,
                  "meta nfproto ipv6 meta l4proto { 6 } tcp dport { 22 } "
                  "ip6 saddr 2001:db8::/48 ip6 daddr ::1 accept\n"))
      << out;
  EXPECT_TRUE(has(out, "meta nfproto ipv6 meta l4proto { 58 } icmpv6 type { 128 } accept\n"))
      << out;
  EXPECT_TRUE(has(out, "meta nfproto ipv6 ip6 saddr 2001:db8::1-2001:db8::2 drop\n")) << out;
  EXPECT_TRUE(has(out, "    meta l4proto { 6 } tcp dport { 80 } accept\n")) << out;
}

TEST(Exporter, NegatedIp6Addresses) {
  // not ip6 saddr X: IPv4, or IPv6 from the complement of X (as ranges).
  std::string out = nft("chain f hook forward { not ip6 saddr 2001:db8::/48 drop }");
  EXPECT_TRUE(has(out, "    meta nfproto ipv4 drop\n")) << out;
  EXPECT_TRUE(
      has(out, "meta nfproto ipv6 ip6 saddr ::-2001:db7:ffff:ffff:ffff:ffff:ffff:ffff drop"))
      << out;
  EXPECT_TRUE(
      has(out, "meta nfproto ipv6 ip6 saddr 2001:db9::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"))
      << out;
  // not (X and a port) is De Morgan's: one alternative tests word 1 alone, which nft reads at
  // bit 96 of the IPv6 header; word 0 alone is IPv4's saddr in IPv4 and bit 64 in IPv6.
  out = nft("chain f hook forward { not (ip6 saddr 2001:db8::/48 tcp dport 22) drop }");
  EXPECT_TRUE(
      has(out, "meta nfproto ipv4 ip saddr { 0.0.0.0-32.1.13.183, 32.1.13.185-255.255.255.255 }"))
      << out;
  EXPECT_TRUE(has(out, "meta nfproto ipv6 @nh,64,32 { 0-536939959, 536939961-4294967295 } drop"))
      << out;
  EXPECT_TRUE(has(out, "meta nfproto ipv6 @nh,96,32 { 65536-4294967295 } drop")) << out;
}

}  // namespace
}  // namespace keel::firewall::testing
