// MLDv2 for a host's solicited-node groups (RFC 3810): reports on joining
// and leaving, answers to General and Multicast Address Specific Queries.
#include "net/link/mld.hpp"

#include "ip6_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

namespace ip6a = ::net::ip6addr;
using MldTest = Ip6StackTest;

const Ip6 mld_routers = ip6_of("ff02::16");
constexpr uint8_t mode_is_exclude = 2, change_to_include = 3, change_to_exclude = 4;

Bytes record(uint8_t type, const Ip6& group) {
  Bytes r{type, 0, 0, 0};
  r.insert(r.end(), group.bytes.begin(), group.bytes.end());
  return r;
}

// The whole report the stack should send: IPv6 from the link-local
// address, hop limit 1, the Router Alert hop-by-hop header, the ICMPv6 report.
Bytes report(std::initializer_list<Bytes> records) {
  Bytes body;
  for (const Bytes& r : records) body.insert(body.end(), r.begin(), r.end());
  Bytes m = icmp6(stack_link_local, mld_routers, 143, 0, uint32_t(records.size()), body);
  Bytes hop_by_hop{58, 0, 5, 2, 0, 0, 1, 0};  // RFC 2711: MLD; PadN
  hop_by_hop.insert(hop_by_hop.end(), m.begin(), m.end());
  return ip6(stack_link_local, mld_routers, 0, hop_by_hop, 1);
}

Bytes query(const Ip6& group, uint16_t max_resp_ms, uint8_t hop_limit = 1,
            const Ip6& src = peer_link_local, bool v1 = false) {
  Bytes body(group.bytes.begin(), group.bytes.end());
  if (!v1) body.insert(body.end(), {0, 0, 0, 0});  // S, QRV, QQIC, no sources
  Ip6 dst = group.is_any() ? ip6a::all_nodes() : group;
  return ip6(src, dst, 58, icmp6(src, dst, 130, 0, uint32_t(max_resp_ms) << 16, body), hop_limit);
}

Bytes packet_of(const Bytes& frame) { return Bytes(frame.begin() + 14, frame.end()); }

TEST_F(MldTest, JoiningAndLeavingAreReportedTwice) {  // §6.1
  const Ip6 fresh = ip6_of("fd00::3");
  iface.configure6(fresh, 64);
  ASSERT_EQ(nic.transmitted.size(), 2u);  // the report, then detection's solicitation
  Bytes f = nic.pop();
  EXPECT_EQ(sent_ethernet(f).dst, ip6a::multicast_mac(mld_routers));
  Bytes expected = report({record(change_to_exclude, ip6a::solicited_node(fresh)),
                           record(change_to_include, ip6a::solicited_node(stack_ip6))});
  EXPECT_EQ(packet_of(f), expected);
  nic.transmitted.clear();
  advance(1s);  // within the Unsolicited Report Interval: once more
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(packet_of(nic.pop()), expected);
  EXPECT_EQ(link_counters().mld.tx_reports, 2u + 2u);  // (the fixture's address too)
}

TEST_F(MldTest, GeneralQueryIsAnsweredWithEveryGroup) {  // §6.2
  inject6(query(Ip6{}, 1000), ip6a::multicast_mac(ip6a::all_nodes()));
  EXPECT_TRUE(nic.transmitted.empty());  // after a random delay
  advance(1s);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(packet_of(nic.pop()),
            report({record(mode_is_exclude, ip6a::solicited_node(stack_link_local)),
                    record(mode_is_exclude, ip6a::solicited_node(stack_ip6))}));
}

TEST_F(MldTest, SpecificQueryIsAnsweredForOurGroupOnly) {
  Ip6 ours = ip6a::solicited_node(stack_ip6);
  inject6(query(ours, 500), ip6a::multicast_mac(ours));
  advance(1s);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(packet_of(nic.pop()), report({record(mode_is_exclude, ours)}));
  Ip6 other = ip6a::solicited_node(ip6_of("fd00::77"));
  inject6(query(other, 500), ip6a::multicast_mac(other));
  advance(1s);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(MldTest, InvalidQueriesAreCounted) {  // §6.2, §5.1.14
  Mac all = ip6a::multicast_mac(ip6a::all_nodes());
  inject6(query(Ip6{}, 100, 255), all);                       // hop limit not 1
  inject6(query(Ip6{}, 100, 1, peer_ip6), all);               // not link-local
  inject6(query(Ip6{}, 100, 1, peer_link_local, true), all);  // MLDv1
  advance(1s);
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(link_counters().mld.drop_bad_query, 2u);
  EXPECT_EQ(link_counters().mld.drop_v1_query, 1u);
}

}  // namespace
}  // namespace keel::test
