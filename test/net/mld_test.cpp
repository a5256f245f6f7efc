// MLDv2 for a host's solicited-node groups (RFC 3810): reports on joining
// and leaving, answers to General and Multicast Address Specific Queries;
// MLDv1 compatibility (§8.2.1, RFC 2710) beside an MLDv1 querier.
#include "net/link/mld.hpp"

#include <algorithm>
#include <vector>

#include "ip6_fixture.hpp"
#include "net/stack_parts.hpp"

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
  inject6(query(Ip6{}, 100, 2, peer_link_local, true), all);  // MLDv1, hop limit not 1
  inject6(query(Ip6{}, 100, 1, peer_ip6, true), all);         // MLDv1, not link-local
  Bytes truncated = icmp6(peer_link_local, ip6a::all_nodes(), 130, 0, 100u << 16, Bytes(12));
  inject6(ip6(peer_link_local, ip6a::all_nodes(), 58, truncated, 1), all);  // 20 bytes
  advance(1s);
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(link_counters().mld.drop_bad_query, 5u);
  EXPECT_EQ(link_counters().mld.rx_v1_queries, 0u);
  EXPECT_FALSE(stack.parts().link(0).mld().v1_mode());  // none of them switched it
}

// MLDv1 (RFC 2710 §3), as the stack should send it in MLDv1 mode: a Report
// to the group or a Done to all routers, behind the same Router Alert.
Bytes message_v1(uint8_t type, const Ip6& group) {
  Ip6 dst = type == 131 ? group : ip6_of("ff02::2");
  Bytes m = icmp6(stack_link_local, dst, type, 0, 0, Bytes(group.bytes.begin(), group.bytes.end()));
  Bytes hop_by_hop{58, 0, 5, 2, 0, 0, 1, 0};
  hop_by_hop.insert(hop_by_hop.end(), m.begin(), m.end());
  return ip6(stack_link_local, dst, 0, hop_by_hop, 1);
}

class MldV1Test : public MldTest {
 protected:
  // The packets sent since the last call, sorted (their order is random).
  std::vector<Bytes> sent() {
    std::vector<Bytes> out;
    while (!nic.transmitted.empty()) out.push_back(packet_of(nic.pop()));
    std::sort(out.begin(), out.end());
    return out;
  }
  static std::vector<Bytes> sorted(std::vector<Bytes> v) {
    std::sort(v.begin(), v.end());
    return v;
  }
  void query_v1(const Ip6& group, uint16_t max_resp_ms) {
    Ip6 dst = group.is_any() ? ip6a::all_nodes() : group;
    inject6(query(group, max_resp_ms, 1, peer_link_local, true), ip6a::multicast_mac(dst));
  }
  void query_v2() { inject6(query(Ip6{}, 1000), ip6a::multicast_mac(ip6a::all_nodes())); }
  const Ip6 ll_group = ip6a::solicited_node(stack_link_local);
  const Ip6 our_group = ip6a::solicited_node(stack_ip6);
};

TEST_F(MldV1Test, AnMldv1QueryIsAnsweredWithAnMldv1ReportPerGroup) {  // §8.2.1
  query_v1(Ip6{}, 1000);
  EXPECT_TRUE(stack.parts().link(0).mld().v1_mode());
  EXPECT_TRUE(nic.transmitted.empty());  // each after its own random delay
  advance(1s);
  EXPECT_EQ(sent(), sorted({message_v1(131, ll_group), message_v1(131, our_group)}));
  EXPECT_EQ(link_counters().mld.rx_v1_queries, 1u);
  EXPECT_EQ(link_counters().mld.tx_v1_reports, 2u);
  // A specific one: that group only, if ours.
  query_v1(our_group, 500);
  query_v1(ip6a::solicited_node(ip6_of("fd00::77")), 500);
  advance(1s);
  EXPECT_EQ(sent(), std::vector<Bytes>{message_v1(131, our_group)});
  // MLDv2 queries too get MLDv1 answers while in MLDv1 mode.
  query_v2();
  advance(1s);
  EXPECT_EQ(sent(), sorted({message_v1(131, ll_group), message_v1(131, our_group)}));
}

TEST_F(MldV1Test, InMldv1ModeAJoinIsReportedTwiceAndALeaveIsDone) {  // RFC 2710 §4
  query_v1(Ip6{}, 0);
  advance(1ms);
  nic.transmitted.clear();
  const Ip6 fresh = ip6_of("fd00::3");
  iface.configure6(fresh, 64);
  std::vector<Bytes> all = sent();
  std::erase_if(all, [](const Bytes& p) { return p[6] == 58; });  // detection's solicitation
  Ip6 fresh_group = ip6a::solicited_node(fresh);
  EXPECT_EQ(all, sorted({message_v1(131, fresh_group), message_v1(132, our_group)}));
  advance(10s);  // MLDv1's Unsolicited Report Interval: the report again, not the Done
  all = sent();
  std::erase_if(all, [](const Bytes& p) { return p[6] == 58; });
  EXPECT_EQ(all, std::vector<Bytes>{message_v1(131, fresh_group)});
  EXPECT_EQ(link_counters().mld.tx_v1_dones, 1u);
}

TEST_F(MldV1Test, Mldv2ReturnsAfterTheOlderVersionQuerierPresentTimeout) {  // §8.2.1, §9.12
  query_v1(Ip6{}, 0);
  advance(200s);
  query_v1(Ip6{}, 0);  // heard again: the timer starts over
  advance(100s);       // 300 s after the first, 100 after the second
  sent();
  query_v2();
  advance(1s);
  EXPECT_EQ(sent(), sorted({message_v1(131, ll_group), message_v1(131, our_group)}));
  advance(160s);  // 261 s after the last MLDv1 query
  EXPECT_FALSE(stack.parts().link(0).mld().v1_mode());
  query_v2();
  advance(1s);
  EXPECT_EQ(sent(), std::vector<Bytes>{report(
                        {record(mode_is_exclude, ll_group), record(mode_is_exclude, our_group)})});
}

// Another host's MLDv1 Report for `group` (RFC 2710 §3): to the group, from
// a link-local address, hop limit 1, behind the Router Alert.
Bytes others_report(const Ip6& group, uint8_t hop_limit = 1, const Ip6& src = peer_link_local,
                    const Ip6* to = nullptr) {
  const Ip6& dst = to ? *to : group;
  Bytes m = icmp6(src, dst, 131, 0, 0, Bytes(group.bytes.begin(), group.bytes.end()));
  Bytes hop_by_hop{58, 0, 5, 2, 0, 0, 1, 0};
  hop_by_hop.insert(hop_by_hop.end(), m.begin(), m.end());
  return ip6(src, dst, 0, hop_by_hop, hop_limit);
}

TEST_F(MldV1Test, AnotherHostsReportSuppressesOursForThatGroup) {  // RFC 2710 §4
  query_v1(Ip6{}, 10000);
  advance(1ms);  // (an answer due at once may have gone already)
  std::vector<Bytes> early = sent();
  inject6(others_report(our_group), ip6a::multicast_mac(our_group));
  advance(10s);
  std::vector<Bytes> all = early, late = sent();
  all.insert(all.end(), late.begin(), late.end());
  // The link-local address's group is still reported; ours only if it went
  // before the other host's report came.
  EXPECT_EQ(std::count(all.begin(), all.end(), message_v1(131, ll_group)), 1);
  EXPECT_EQ(std::count(late.begin(), late.end(), message_v1(131, our_group)), 0);
  EXPECT_EQ(link_counters().mld.rx_v1_reports, 1u);
  bool went_early = std::count(early.begin(), early.end(), message_v1(131, our_group)) == 1;
  EXPECT_EQ(link_counters().mld.v1_reports_suppressed, went_early ? 0u : 1u);
  // The next query is answered again (the report cancelled one timer only).
  query_v1(our_group, 1000);
  advance(1s);
  EXPECT_EQ(sent(), std::vector<Bytes>{message_v1(131, our_group)});
}

TEST_F(MldV1Test, AnotherHostsReportCancelsTheRepeatOfAJoin) {  // RFC 2710 §4
  query_v1(Ip6{}, 0);
  advance(1ms);
  nic.transmitted.clear();
  const Ip6 fresh = ip6_of("fd00::3");
  Ip6 fresh_group = ip6a::solicited_node(fresh);
  iface.configure6(fresh, 64);  // reported at once, and again within 10 s
  nic.transmitted.clear();
  inject6(others_report(fresh_group), ip6a::multicast_mac(fresh_group));
  advance(10s);
  std::vector<Bytes> all = sent();
  std::erase_if(all, [](const Bytes& p) { return p[6] == 58; });  // detection's solicitation
  EXPECT_TRUE(all.empty());
  EXPECT_EQ(link_counters().mld.v1_reports_suppressed, 1u);
}

TEST_F(MldV1Test, OnlyAValidReportForThatGroupSuppresses) {
  query_v1(our_group, 10000);
  Mac mac = ip6a::multicast_mac(our_group);
  inject6(others_report(our_group, 255), mac);          // hop limit not 1
  inject6(others_report(our_group, 1, peer_ip6), mac);  // not link-local
  // To our group, but about another (the link would not take a frame to its MAC).
  inject6(others_report(ip6a::solicited_node(ip6_of("fd00::77")), 1, peer_link_local, &our_group),
          mac);
  advance(10s);
  EXPECT_EQ(sent(), std::vector<Bytes>{message_v1(131, our_group)});
  EXPECT_EQ(link_counters().mld.drop_bad_report, 2u);
  EXPECT_EQ(link_counters().mld.v1_reports_suppressed, 0u);
}

TEST_F(MldV1Test, InMldv2ModeReportsAreNotSuppressed) {  // RFC 3810 §8.2.2
  query_v2();
  inject6(others_report(our_group), ip6a::multicast_mac(our_group));
  advance(1s);
  EXPECT_EQ(sent(), std::vector<Bytes>{report(
                        {record(mode_is_exclude, ll_group), record(mode_is_exclude, our_group)})});
  EXPECT_EQ(link_counters().mld.rx_v1_reports, 1u);
  EXPECT_EQ(link_counters().mld.v1_reports_suppressed, 0u);
  EXPECT_FALSE(stack.parts().link(0).mld().v1_mode());  // a report is no querier
}

TEST_F(MldV1Test, SwitchingDropsPendingMldv2Answers) {
  query_v2();          // an MLDv2 answer is pending...
  query_v1(Ip6{}, 0);  // ...when an MLDv1 querier speaks up
  advance(1s);
  EXPECT_EQ(sent(), sorted({message_v1(131, ll_group), message_v1(131, our_group)}));
}

}  // namespace
}  // namespace keel::test
