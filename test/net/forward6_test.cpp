// IPv6 forwarding between two interfaces (decision 0134): off unless turned
// on; the hop limit one lower; longest prefix match over the table and the
// on-link prefixes; time exceeded, no route, packet too big with the next
// link's MTU (never fragments), address unreachable when ND gives up; no
// link-local or group forwarding; the hooks on the way, with the family.
#include <algorithm>

#include "router6_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::wire::EthernetRepr;
using ::net::wire::Ip6Repr;
namespace msg = ::net::wire::icmp6;  // ICMPv6 types and codes

constexpr uint16_t ethertype_ip6 = ::net::wire::ethertype_ip6;

Ip6Repr header6(const Bytes& ip) {
  ::net::wire::Ip6View<const uint8_t> v(ip.data(), ip.size());
  EXPECT_EQ(v.check(), ::net::wire::Ip6Error::none);
  return Ip6Repr::parse(v);
}

Bytes udp_packet(const Ip6& src, const Ip6& dst, std::size_t size, uint8_t hop_limit = 64) {
  return ip6(src, dst, 17, udp6(src, dst, 1000, 2000, pattern(size)), hop_limit);
}

// `frame` is the router forwarding `ip` one hop on, to `mac` from `from`.
void expect_forwarded(const Bytes& frame, const Bytes& ip, Mac mac, Mac from) {
  EXPECT_EQ(sent_ethernet(frame), (EthernetRepr{mac, from, ethertype_ip6}));
  Ip6Repr h = header6(ip);
  --h.hop_limit;
  EXPECT_EQ(sent_ip6(frame), h);
  EXPECT_EQ(sent_payload6(frame), Bytes(ip.begin() + 40, ip.end()));
}

// `frame` is an ICMPv6 error from net0's address to `to` on net0: type,
// code, its second word, and the offending packet quoted up to 1280 bytes
// in all (RFC 4443 §2.4 (c)).
void expect_error(const Bytes& frame, const Ip6& to, uint8_t type, uint8_t code, uint32_t rest,
                  const Bytes& offending, const Ip6& from = stack_ip6) {
  EXPECT_EQ(sent_ethernet(frame), (EthernetRepr{peer_mac, stack_mac, ethertype_ip6}));
  Ip6Repr ip = sent_ip6(frame);
  EXPECT_EQ(ip.src, from);
  EXPECT_EQ(ip.dst, to);
  EXPECT_EQ(ip.next_header, 58);
  Bytes m = sent_icmp6(frame);
  ASSERT_GE(m.size(), 8u);
  EXPECT_EQ(m[0], type);
  EXPECT_EQ(m[1], code);
  EXPECT_EQ(::net::wire::load32(&m[4]), rest);
  std::size_t n = std::min<std::size_t>(offending.size(), 1280 - 40 - 8);
  ASSERT_EQ(m.size(), 8 + n);
  EXPECT_TRUE(std::equal(m.begin() + 8, m.end(), offending.begin(), offending.begin() + n));
}

using Forward6Test = Router6Test;

TEST_F(Forward6Test, OffByDefault) {
  EXPECT_FALSE(stack.forwarding());
  from_peer0_6(udp_packet(peer_ip6, peer1_ip6, 10));
  EXPECT_TRUE(sent(nic1).empty());
  EXPECT_TRUE(sent(nic0).empty());  // a host is silent
  EXPECT_EQ(counters6().drop_not_for_us, 1u);
  EXPECT_EQ(counters6().forwarded, 0u);
}

// RFC 4861 §4.4, §7.2.4: a router's advertisements set the router flag.
TEST_F(Forward6Test, AdvertisementsSayRouterWhenForwarding) {
  auto flags_of_answer = [&] {
    learn(nic0, peer_ip6, stack_ip6, peer_mac);
    auto out = sent(nic0);
    EXPECT_EQ(out.size(), 1u);
    Bytes m = out.empty() ? Bytes(8) : sent_icmp6(out[0]);
    EXPECT_EQ(m[0], msg::neighbor_advertisement);
    return m[4];
  };
  EXPECT_EQ(flags_of_answer(), 0x60);  // solicited, override
  stack.set_forwarding(true);
  EXPECT_EQ(flags_of_answer(), 0xe0);  // and router
}

TEST_F(Forward6Test, ForwardsBothWaysWithTheHopLimitOneLower) {
  stack.set_forwarding(true);
  Bytes there = udp_packet(peer_ip6, peer1_ip6, 100);
  from_peer0_6(there);
  auto out = sent(nic1);
  ASSERT_EQ(out.size(), 1u);
  expect_forwarded(out[0], there, peer1_mac, router_mac1);
  Bytes back = ip6(peer1_ip6, peer_ip6, 58, icmp6(peer1_ip6, peer_ip6, 129, 0, 7, pattern(32)), 2);
  from_peer1_6(back);
  out = sent(nic0);
  ASSERT_EQ(out.size(), 1u);
  expect_forwarded(out[0], back, peer_mac, stack_mac);
  EXPECT_EQ(counters6().forwarded, 2u);
  EXPECT_TRUE(sent(nic1).empty());
}

// The table's longest match wins over shorter ones; an on-link prefix as
// long or longer wins over the table (the neighbour is on that link).
TEST_F(Forward6Test, LongestPrefixMatch) {
  stack.set_forwarding(true);
  add_route6("2001:db8::", 32, "fd01::1", 1);
  add_route6("2001:db8:5::", 48, "fd00::1", 0);
  add_route6("fd00::", 16, "fd01::1", 1);
  add_route6("::", 0, "fd01::1", 1);
  Bytes to48 = udp_packet(peer1_ip6, ip6_of("2001:db8:5::9"), 20);
  from_peer1_6(to48);
  auto out = sent(nic0);
  ASSERT_EQ(out.size(), 1u);
  expect_forwarded(out[0], to48, peer_mac, stack_mac);  // through fd00::1

  Bytes to32 = udp_packet(peer_ip6, ip6_of("2001:db8:6::9"), 20);
  from_peer0_6(to32);
  out = sent(nic1);
  ASSERT_EQ(out.size(), 1u);
  expect_forwarded(out[0], to32, peer1_mac, router_mac1);  // through fd01::1

  Bytes to_default = udp_packet(peer_ip6, ip6_of("2a00::1"), 20);
  from_peer0_6(to_default);
  out = sent(nic1);
  ASSERT_EQ(out.size(), 1u);
  expect_forwarded(out[0], to_default, peer1_mac, router_mac1);

  // fd00::7 is in net0's /64, longer than the table's fd00::/16: net0
  // solicits it (RFC 4861 §7.2.2) instead of sending it to fd01::1.
  from_peer1_6(udp_packet(peer1_ip6, ip6_of("fd00::7"), 20));
  EXPECT_TRUE(sent(nic1).empty());
  out = sent(nic0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(sent_ip6(out[0]).dst, ::net::ip6addr::solicited_node(ip6_of("fd00::7")));
  EXPECT_EQ(sent_icmp6(out[0])[0], msg::neighbor_solicitation);
}

// The host's own packets take the same lookup: a table route's gateway,
// from the outgoing interface's address (forwarding off).
TEST_F(Forward6Test, ThisHostsPacketsTakeTheTableRouteToo) {
  add_route6("2001:db8::", 32, "fd01::1", 1);
  auto socket = *stack.udp().bind(0);
  ASSERT_EQ(socket.send_to({ip6_of("2001:db8::9"), 9}, "a", 1), ::net::Status::ok);
  EXPECT_TRUE(sent(nic0).empty());
  auto out = sent(nic1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(sent_ethernet(out[0]), (EthernetRepr{peer1_mac, router_mac1, ethertype_ip6}));
  EXPECT_EQ(sent_ip6(out[0]).src, router_ip6_1);
  EXPECT_EQ(sent_ip6(out[0]).dst, ip6_of("2001:db8::9"));
  EXPECT_EQ(socket.send_to({ip6_of("2001:db9::9"), 9}, "a", 1), ::net::Status::no_route);
}

TEST_F(Forward6Test, HopLimitRunningOutIsAnsweredWithTimeExceeded) {
  stack.set_forwarding(true);
  for (uint8_t hop_limit : {1, 0}) {
    Bytes last = udp_packet(peer_ip6, peer1_ip6, 30, hop_limit);
    from_peer0_6(last);
    auto out = sent(nic0);
    ASSERT_EQ(out.size(), 1u);
    expect_error(out[0], peer_ip6, msg::time_exceeded, msg::hop_limit_exceeded, 0, last);
  }
  EXPECT_TRUE(sent(nic1).empty());
  EXPECT_EQ(counters6().drop_hop_limit, 2u);
  EXPECT_EQ(counters().icmp6.tx_time_exceeded, 2u);
  // Two hops left: it goes on, with one.
  from_peer0_6(udp_packet(peer_ip6, peer1_ip6, 30, 2));
  auto out = sent(nic1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(sent_ip6(out[0]).hop_limit, 1);
}

TEST_F(Forward6Test, NoRouteIsAnsweredWithUnreachableCode0) {
  stack.set_forwarding(true);
  Bytes lost = udp_packet(peer_ip6, ip6_of("2001:db8::1"), 40);
  from_peer0_6(lost);
  auto out = sent(nic0);
  ASSERT_EQ(out.size(), 1u);
  expect_error(out[0], peer_ip6, msg::destination_unreachable, msg::no_route, 0, lost);
  EXPECT_EQ(counters6().drop_no_route, 1u);
  EXPECT_TRUE(sent(nic1).empty());
}

// Link-local addresses never leave their link (RFC 4291 §2.5.6, RFC 4007
// §9); groups are not routed; the unspecified source is never forwarded.
TEST_F(Forward6Test, LinkLocalAndGroupsAreNotForwarded) {
  stack.set_forwarding(true);
  add_route6("::", 0, "fd01::1", 1);
  from_peer0_6(udp_packet(peer_ip6, ip6_of("fe80::99"), 10));  // not ours, link-local
  EXPECT_TRUE(sent(nic0).empty());
  EXPECT_TRUE(sent(nic1).empty());
  EXPECT_EQ(counters6().drop_beyond_scope, 1u);

  Bytes from_link_local = udp_packet(peer_link_local, peer1_ip6, 10);
  from_peer0_6(from_link_local);
  EXPECT_TRUE(sent(nic1).empty());
  auto out = sent(nic0);
  ASSERT_EQ(out.size(), 1u);
  expect_error(out[0], peer_link_local, msg::destination_unreachable, msg::beyond_scope, 0,
               from_link_local, stack_link_local);
  EXPECT_EQ(counters6().drop_beyond_scope, 2u);

  // A global-scope group, sent to the router's MAC or to the group's.
  Ip6 group = ip6_of("ff0e::1234");
  from_peer0_6(udp_packet(peer_ip6, group, 10));
  nic0.inject(ethernet(::net::ip6addr::multicast_mac(group), peer_mac, ethertype_ip6,
                       udp_packet(peer_ip6, group, 10)));
  from_peer0_6(udp_packet(Ip6{}, peer1_ip6, 10));
  from_peer0_6(udp_packet(peer_ip6, Ip6{}, 10));  // the default route would take ::
  EXPECT_TRUE(sent(nic0).empty());
  EXPECT_TRUE(sent(nic1).empty());
  EXPECT_EQ(counters6().drop_not_for_us, 1u);  // the group's MAC is not even taken
  EXPECT_EQ(counters6().drop_bad_address, 2u);
  EXPECT_EQ(counters6().forwarded, 0u);
}

// RFC 4861 §7.2.2: three solicitations unanswered, and each queued packet
// is answered with address unreachable.
TEST_F(Forward6Test, AnUnresolvedNeighbourIsAnsweredWithAddressUnreachable) {
  stack.set_forwarding(true);
  Bytes to_nobody = udp_packet(peer_ip6, ip6_of("fd01::77"), 10);
  from_peer0_6(to_nobody);
  clock.advance(1s);
  clock.advance(1s);
  EXPECT_TRUE(sent(nic0).empty());
  clock.advance(1s);
  auto solicitations = sent(nic1);
  EXPECT_EQ(solicitations.size(), 3u);
  auto out = sent(nic0);
  ASSERT_EQ(out.size(), 1u);
  Bytes quoted = to_nobody;
  --quoted[7];  // it had gone one hop
  expect_error(out[0], peer_ip6, msg::destination_unreachable, msg::address_unreachable, 0, quoted);
  EXPECT_EQ(counters6().drop_address_unreachable, 1u);
}

TEST_F(Forward6Test, ErrorsAreRateLimited) {  // RFC 4443 §2.4 (f): the host's bucket
  stack.set_forwarding(true);
  for (int i = 0; i < 60; ++i) from_peer0_6(udp_packet(peer_ip6, peer1_ip6, 10, 1));
  EXPECT_EQ(sent(nic0).size(), 50u);
  EXPECT_EQ(counters().icmp6.drop_rate_limited, 10u);
  EXPECT_EQ(counters6().drop_hop_limit, 60u);
}

// IPv6 passes forward and postrouting as IPv4 does, its family named; a
// drop at forward stops it.
TEST_F(Forward6Test, ForwardedPacketsPassTheHooks) {
  using ::net::Hook;
  stack.set_forwarding(true);
  std::vector<std::tuple<Hook, ::net::InterfaceId, ::net::InterfaceId>> seen;
  for (Hook hook : {Hook::prerouting, Hook::input, Hook::forward, Hook::postrouting}) {
    stack.hooks().add(hook, 0, [&seen](::net::HookPacket& p) {
      if (p.family == ::net::Address::Family::ip6) seen.emplace_back(p.hook, p.in, p.out);
      return ::net::Verdict::accept;
    });
  }
  from_peer0_6(udp_packet(peer_ip6, peer1_ip6, 10));
  EXPECT_EQ(sent(nic1).size(), 1u);
  constexpr auto none = ::net::no_interface;
  EXPECT_EQ(seen,
            (std::vector<std::tuple<Hook, ::net::InterfaceId, ::net::InterfaceId>>{
                {Hook::prerouting, 0, none}, {Hook::forward, 0, 1}, {Hook::postrouting, 0, 1}}));
  stack.hooks().add(Hook::forward, 1, [](::net::HookPacket&) { return ::net::Verdict::drop; });
  from_peer0_6(udp_packet(peer_ip6, peer1_ip6, 10));
  EXPECT_TRUE(sent(nic1).empty());
  EXPECT_EQ(counters6().drop_by_hook, 1u);
}

// net1's MTU is 1400: a bigger packet is answered with Packet Too Big
// carrying 1400 (RFC 4443 §3.2), quoting what fits in 1280 bytes; it is
// never fragmented (RFC 8200 §5).
class Forward6MtuTest : public Router6Test {
 protected:
  Forward6MtuTest() : Router6Test(1400) {}
};

TEST_F(Forward6MtuTest, TooBigForTheNextLinkGetsPacketTooBig) {
  stack.set_forwarding(true);
  Bytes fits = udp_packet(peer_ip6, peer1_ip6, 1400 - 48);
  from_peer0_6(fits);
  auto out = sent(nic1);
  ASSERT_EQ(out.size(), 1u);
  expect_forwarded(out[0], fits, peer1_mac, router_mac1);
  Bytes big = udp_packet(peer_ip6, peer1_ip6, 1400 - 47);
  from_peer0_6(big);
  EXPECT_TRUE(sent(nic1).empty());
  out = sent(nic0);
  ASSERT_EQ(out.size(), 1u);
  expect_error(out[0], peer_ip6, msg::packet_too_big, 0, 1400, big);
  EXPECT_EQ(counters6().drop_packet_too_big, 1u);
  EXPECT_EQ(counters().icmp6.tx_packet_too_big, 1u);
  EXPECT_EQ(counters6().tx_fragments, 0u);
}

// A TCP segment the host coalesced (GUEST_TSO6, decision 0093): its segments' size is what must
// fit the next link, not the whole; one that fits leaves cut in software (net1 has no TSO).
Bytes coalesced_tcp6(uint32_t payload_size) {
  Bytes tcp(20);
  tcp[1] = 80, tcp[3] = 80, tcp[7] = 1, tcp[12] = 5 << 4, tcp[13] = 0x18, tcp[14] = 0xff;
  Bytes payload = pattern(payload_size, 5);
  tcp.insert(tcp.end(), payload.begin(), payload.end());
  Bytes ip = ip6(peer_ip6, peer1_ip6, 6, tcp);
  // The checksum field holds the pseudo-header sum only (RFC 8200 §8.1), as a host hands it over.
  uint32_t sum = ::net::wire::checksum_add(0, ip.data() + 8, 32) + 6 + uint32_t(tcp.size());
  uint16_t field = ::net::wire::checksum_fold(sum);
  ip[40 + 16] = uint8_t(field >> 8), ip[40 + 17] = uint8_t(field);
  return ip;
}

TEST_F(Forward6MtuTest, ACoalescedSegmentLeavesAsSegmentsThatFitTheNextLink) {
  stack.set_forwarding(true);
  constexpr uint16_t fits = 1400 - 60, too_big = 1400 - 59;  // payload per segment
  nic0.inject_coalesced(ethernet(stack_mac, peer_mac, ethertype_ip6, coalesced_tcp6(10 * fits)),
                        fits, 14 + 40);
  auto out = sent(nic1);
  ASSERT_EQ(out.size(), 10u);
  for (const Bytes& frame : out) EXPECT_EQ(frame.size(), 14u + 1400u);
  EXPECT_EQ(counters6().forwarded, 1u);
  EXPECT_EQ(if1.counters().link.tx_software_segments, 10u);
  EXPECT_TRUE(sent(nic0).empty());
  nic0.inject_coalesced(ethernet(stack_mac, peer_mac, ethertype_ip6, coalesced_tcp6(10 * too_big)),
                        too_big, 14 + 40);
  EXPECT_TRUE(sent(nic1).empty());
  out = sent(nic0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(sent_icmp6(out[0])[0], msg::packet_too_big);
  EXPECT_EQ(counters6().drop_packet_too_big, 1u);
}

}  // namespace
}  // namespace keel::test
