// Forwarding between two interfaces (RFC 1812 §5.2–5.3): off unless turned
// on; TTL, time exceeded, net unreachable, fragmentation needed with the
// next-hop MTU, and fragmenting what does not fit the next link.
#include <algorithm>

#include "router_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::wire::EthernetRepr;
using ::net::wire::Icmp4Repr;
using ::net::wire::Ip4Repr;
namespace icmp = ::net::wire::icmp4;

// The header of an IPv4 packet a test built.
Ip4Repr header_of(const Bytes& ip) {
  ::net::wire::Ip4View<const uint8_t> v(ip.data(), ip.size());
  EXPECT_EQ(v.check(), ::net::wire::Ip4Error::none);
  return Ip4Repr::parse(v);
}

// What a router makes of it: the same header, one hop less.
Ip4Repr one_hop_later(const Bytes& ip) {
  Ip4Repr h = header_of(ip);
  --h.ttl;
  return h;
}

// An ICMP error from net0's address to peer0, quoting as much of
// `offending` as fits in 576 bytes (RFC 1812 §4.3.2.3).
void expect_error_to_peer0(const Bytes& frame, Icmp4Repr error, const Bytes& offending) {
  EXPECT_EQ(sent_ethernet(frame), (EthernetRepr{peer_mac, stack_mac, ::net::wire::ethertype_ip4}));
  Ip4Repr ip = sent_ip(frame);
  EXPECT_EQ(ip.src, stack_ip);
  EXPECT_EQ(ip.dst, peer_ip);
  EXPECT_EQ(ip.protocol, 1);
  EXPECT_EQ(sent_icmp(frame), error);
  Bytes quoted = sent_payload(frame);
  std::size_t n = std::min<std::size_t>(offending.size(), 576 - 20 - 8);
  ASSERT_EQ(quoted.size(), 8 + n);
  EXPECT_TRUE(
      std::equal(quoted.begin() + 8, quoted.end(), offending.begin(), offending.begin() + n));
}

::net::Route route_via(Ip destination, uint8_t prefix_len, Ip gateway,
                       ::net::InterfaceId interface) {
  ::net::Route r;
  r.destination = destination;
  r.prefix_len = prefix_len;
  r.gateway = gateway;
  r.interface = interface;
  return r;
}

using ForwardTest = RouterTest;

TEST_F(ForwardTest, OffByDefault) {
  EXPECT_FALSE(stack.forwarding());
  from_peer0(ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1, 2, pattern(10))));
  EXPECT_TRUE(nic1.transmitted.empty());
  EXPECT_TRUE(nic0.transmitted.empty());  // and no error either: a host is silent
  EXPECT_EQ(counters().ip4.drop_not_for_us, 1u);
  EXPECT_EQ(counters().ip4.forwarded, 0u);
}

TEST_F(ForwardTest, ForwardsBothWaysWithTheTtlOneLower) {
  stack.set_forwarding(true);
  EXPECT_TRUE(stack.forwarding());
  Bytes there =
      ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1000, 2000, pattern(100)), {.id = 77});
  from_peer0(there);
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  Bytes f = nic1.pop();
  EXPECT_EQ(sent_ethernet(f), (EthernetRepr{peer1_mac, router_mac1, ::net::wire::ethertype_ip4}));
  EXPECT_EQ(sent_ip(f), one_hop_later(there));  // sent_ip checks the updated checksum
  EXPECT_EQ(sent_payload(f), Bytes(there.begin() + 20, there.end()));
  Bytes back = ip4(peer1_ip, peer_ip, 1, icmp_echo(5, 6, pattern(32)), {.ttl = 2});
  from_peer1(back);
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic0.transmitted[0]), one_hop_later(back));
  EXPECT_EQ(counters().ip4.forwarded, 2u);
  EXPECT_EQ(counters().ip4.delivered, 0u);
  EXPECT_EQ(nic0.pool().available(), nic0.pool().count());
  EXPECT_EQ(nic1.pool().available(), nic1.pool().count());
}

// RFC 1812 §5.3.1: a TTL that would reach 0 is not forwarded; time
// exceeded goes back from the interface it came in on.
TEST_F(ForwardTest, TtlRunningOutIsAnsweredWithTimeExceeded) {
  stack.set_forwarding(true);
  for (uint8_t ttl : {uint8_t(1), uint8_t(0)}) {
    Bytes dying =
        ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1, 2, pattern(40)), {.ttl = ttl});
    from_peer0(dying);
    EXPECT_TRUE(nic1.transmitted.empty());
    ASSERT_EQ(nic0.transmitted.size(), 1u);
    expect_error_to_peer0(nic0.pop(), {icmp::time_exceeded, icmp::ttl_exceeded, 0}, dying);
  }
  EXPECT_EQ(counters().ip4.drop_ttl_exceeded, 2u);
  EXPECT_EQ(counters().icmp4.tx_time_exceeded, 2u);
}

// What is addressed to the router itself is not forwarded, whatever its
// TTL (RFC 1122 §3.2.1.7), and any of its addresses will do (weak host).
TEST_F(ForwardTest, TheRoutersOwnAddressesAreLocal) {
  stack.set_forwarding(true);
  from_peer0(ip4(peer_ip, router_ip1, 1, icmp_echo(1, 1, {}), {.ttl = 1}));
  EXPECT_TRUE(nic1.transmitted.empty());
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  Bytes reply = nic0.pop();
  EXPECT_EQ(sent_icmp(reply), Icmp4Repr::echo(icmp::echo_reply, 1, 1));
  EXPECT_EQ(sent_ip(reply).src, router_ip1);  // from the address it was sent to
  EXPECT_EQ(counters().ip4.forwarded, 0u);
}

// An error about a datagram to the router's address on net1 that came in
// on net0 comes from that address, as Linux's does (the differential test
// against a Linux router found it).
TEST_F(ForwardTest, AnErrorAboutADatagramToTheRouterComesFromItsDestination) {
  stack.set_forwarding(true);
  from_peer0(ip4(peer_ip, router_ip1, 17, udp(peer_ip, router_ip1, 1, 9, pattern(8))));
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  Bytes error = nic0.pop();
  EXPECT_EQ(sent_icmp(error), (Icmp4Repr{icmp::unreachable, icmp::port_unreachable, 0}));
  EXPECT_EQ(sent_ip(error).src, router_ip1);
  EXPECT_TRUE(nic1.transmitted.empty());
}

TEST_F(ForwardTest, NoRouteIsAnsweredWithNetUnreachable) {
  stack.set_forwarding(true);
  Bytes lost =
      ip4(peer_ip, Ip{192, 168, 9, 9}, 17, udp(peer_ip, Ip{192, 168, 9, 9}, 1, 2, pattern(8)));
  from_peer0(lost);
  EXPECT_TRUE(nic1.transmitted.empty());
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  expect_error_to_peer0(nic0.pop(), {icmp::unreachable, icmp::net_unreachable, 0}, lost);
  EXPECT_EQ(counters().ip4.drop_no_route, 1u);
  EXPECT_EQ(counters().icmp4.tx_net_unreachable, 1u);
  // Once there is a route (through a gateway on net1), it goes there.
  ASSERT_EQ(stack.routes().add(route_via(Ip{192, 168, 0, 0}, 16, peer1_ip, 1)), ::net::Status::ok);
  from_peer0(lost);
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  Bytes f = nic1.pop();
  EXPECT_EQ(sent_ethernet(f).dst, peer1_mac);  // the gateway's MAC
  EXPECT_EQ(sent_ip(f), one_hop_later(lost));
}

// The next hop on the outgoing link is resolved there first.
TEST_F(ForwardTest, AnUnknownNextHopIsResolvedOnTheOutgoingInterface) {
  stack.set_forwarding(true);
  Ip far{10, 1, 0, 77};
  Mac far_mac{{0x02, 0, 0, 0, 1, 77}};
  Bytes packet = ip4(peer_ip, far, 17, udp(peer_ip, far, 1, 2, pattern(8)));
  from_peer0(packet);
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  EXPECT_EQ(sent_arp(nic1.pop()), (::net::wire::ArpRepr{::net::wire::ArpRepr::request, router_mac1,
                                                        router_ip1, Mac{}, far}));
  nic1.inject(
      ethernet(router_mac1, far_mac, 0x0806, arp(2, far_mac, far, router_mac1, router_ip1)));
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  Bytes f = nic1.pop();
  EXPECT_EQ(sent_ethernet(f).dst, far_mac);
  EXPECT_EQ(sent_ip(f), one_hop_later(packet));
}

// RFC 1812 §5.3.4: link broadcasts and multicasts are never forwarded, nor
// is anything from a link broadcast; nor, by default, a directed broadcast
// to the other interface's subnet (RFC 2644: no smurf amplifier).
TEST_F(ForwardTest, BroadcastsAndMulticastsStayOnTheirLink) {
  stack.set_forwarding(true);
  nic0.inject(ethernet(Mac::broadcast(), peer_mac, 0x0800,
                       ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1, 2, {}))));
  from_peer0(ip4(peer_ip, Ip{10, 1, 0, 255}, 17, udp(peer_ip, Ip{10, 1, 0, 255}, 1, 2, {})));
  from_peer0(ip4(peer_ip, Ip{239, 1, 1, 1}, 17, udp(peer_ip, Ip{239, 1, 1, 1}, 1, 2, {})));
  EXPECT_TRUE(nic1.transmitted.empty());
  EXPECT_TRUE(nic0.transmitted.empty());
  EXPECT_EQ(counters().ip4.forwarded, 0u);
  EXPECT_EQ(counters().ip4.drop_not_for_us, 3u);
}

// net1 carries 576-byte packets (RFC 791's "every host accepts 576").
constexpr uint16_t small_mtu = 576;

// RFC 1122 §3.2.1.3 (g), RFC 1812 §5.3.7: 127/8 never appears outside a
// host, and 0/8 means "this network": neither is forwarded, even with a
// default route that would take them.
TEST_F(ForwardTest, MartianDestinationsAreNotForwarded) {
  stack.set_forwarding(true);
  ASSERT_EQ(stack.routes().add(route_via(Ip{}, 0, peer1_ip, 1)), ::net::Status::ok);
  for (Ip martian : {Ip{127, 0, 0, 1}, Ip{127, 9, 9, 9}, Ip{0, 1, 2, 3}}) {
    from_peer0(ip4(peer_ip, martian, 17, udp(peer_ip, martian, 1, 2, {})));
  }
  EXPECT_TRUE(nic1.transmitted.empty());
  EXPECT_TRUE(nic0.transmitted.empty());
  EXPECT_EQ(counters().ip4.forwarded, 0u);
  EXPECT_EQ(counters().ip4.drop_not_for_us, 3u);
  from_peer0(ip4(peer_ip, Ip{8, 8, 8, 8}, 17, udp(peer_ip, Ip{8, 8, 8, 8}, 1, 2, {})));
  EXPECT_EQ(nic1.transmitted.size(), 1u);  // what the default route is for
}

// With defragment_all, fragments passing through are reassembled before
// prerouting (as Linux's conntrack does) and leave whole when they fit.
TEST_F(ForwardTest, DefragmentAllReassemblesForwardedDatagrams) {
  stack.set_forwarding(true);
  Bytes whole = ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1, 2, pattern(1000)), {.id = 5});
  auto parts = fragments(whole, 512);
  ASSERT_EQ(parts.size(), 2u);
  for (const Bytes& p : parts) from_peer0(p);
  EXPECT_EQ(nic1.transmitted.size(), 2u);  // by default fragments pass as they are
  nic1.transmitted.clear();
  stack.set_defragment_all(true);
  std::vector<std::size_t> prerouting_sizes;
  stack.hooks().add(::net::Hook::prerouting, 0, [&](::net::HookPacket& p) {
    prerouting_sizes.push_back(p.packet.size());
    return ::net::Verdict::accept;
  });
  for (const Bytes& p : parts) from_peer0(p);
  EXPECT_EQ(prerouting_sizes, (std::vector<std::size_t>{whole.size()}));
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic1.transmitted[0]), one_hop_later(whole));
  EXPECT_EQ(sent_payload(nic1.transmitted[0]), Bytes(whole.begin() + 20, whole.end()));
  EXPECT_EQ(counters().ip4.reassembled, 1u);
}

class SmallMtuForwardTest : public RouterTest {
 protected:
  SmallMtuForwardTest() : RouterTest(small_mtu) {}
  void SetUp() override {
    RouterTest::SetUp();
    stack.set_forwarding(true);
  }
};

// RFC 1191: too big for the next link with DF set: fragmentation needed,
// carrying the next hop's MTU in the low 16 bits of the second word.
TEST_F(SmallMtuForwardTest, DontFragmentTooBigIsAnsweredWithTheNextHopMtu) {
  Bytes big =
      ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1, 2, pattern(1200)), {.fragment = 0x4000});
  from_peer0(big);
  EXPECT_TRUE(nic1.transmitted.empty());
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  expect_error_to_peer0(nic0.pop(), {icmp::unreachable, icmp::fragmentation_needed, small_mtu},
                        big);
  EXPECT_EQ(counters().ip4.drop_fragmentation_needed, 1u);
  EXPECT_EQ(counters().icmp4.tx_fragmentation_needed, 1u);
  // Exactly the MTU passes.
  from_peer0(ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1, 2, pattern(small_mtu - 28)),
                 {.fragment = 0x4000}));
  EXPECT_EQ(nic1.transmitted.size(), 1u);
}

// Reassembles the fragments sent on `nic`, checking each header against
// `original` (one hop later): same id, addresses, protocol; offsets in
// order, MF on all but the last.
Bytes reassemble(std::deque<Bytes>& frames, const Ip4Repr& original, uint16_t mtu) {
  Bytes payload;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const Bytes& f = frames[i];
    EXPECT_LE(f.size() - 14, mtu);
    Ip4Repr h = sent_ip(f);
    Bytes data = sent_payload(f);
    Ip4Repr expected = original;
    expected.fragment_offset = original.fragment_offset + uint32_t(payload.size());
    expected.more_fragments = i + 1 < frames.size() || original.more_fragments;
    expected.payload_len = uint16_t(data.size());
    EXPECT_EQ(h, expected) << "fragment " << i;
    if (expected.more_fragments) {
      EXPECT_EQ(data.size() % 8, 0u);
    }
    payload.insert(payload.end(), data.begin(), data.end());
  }
  return payload;
}

TEST_F(SmallMtuForwardTest, ADatagramTooBigForTheNextLinkIsFragmented) {
  Bytes data = udp(peer_ip, peer1_ip, 1, 2, pattern(1400));
  Bytes big = ip4(peer_ip, peer1_ip, 17, data, {.id = 4242});
  from_peer0(big);
  ASSERT_EQ(nic1.transmitted.size(), 3u);  // 552 + 552 + 304 bytes
  EXPECT_EQ(reassemble(nic1.transmitted, one_hop_later(big), small_mtu), data);
  EXPECT_EQ(counters().ip4.tx_fragments, 3u);
  EXPECT_EQ(counters().ip4.forwarded, 1u);
  EXPECT_TRUE(nic0.transmitted.empty());
}

// A fragment is fragmented again: offsets continue from its own, and the
// last piece keeps MF when the fragment had it.
TEST_F(SmallMtuForwardTest, AForwardedFragmentIsSplitAgain) {
  Bytes middle =
      ip4(peer_ip, peer1_ip, 17, pattern(1000), {.id = 9, .fragment = 0x2000 | (1480 / 8)});
  from_peer0(middle);
  ASSERT_EQ(nic1.transmitted.size(), 2u);  // 552 + 448 bytes
  Ip4Repr original = one_hop_later(middle);
  EXPECT_EQ(original.fragment_offset, 1480u);
  EXPECT_EQ(reassemble(nic1.transmitted, original, small_mtu), pattern(1000));
}

// RFC 791 §3.1: options whose copied flag is set are repeated in every
// fragment; the others only in the first.
TEST_F(SmallMtuForwardTest, OnlyCopiedOptionsAreRepeatedInLaterFragments) {
  const Bytes router_alert{0x94, 0x04, 0x00, 0x00};             // RFC 2113: copied flag set
  const Bytes record_route{0x07, 0x07, 0x04, 0, 0, 0, 0};       // not copied
  const Bytes security{0x82, 0x0b, 1, 2, 3, 4, 5, 6, 7, 8, 9};  // RFC 1108, copied
  Bytes options = record_route;
  options.insert(options.end(), router_alert.begin(), router_alert.end());
  options.insert(options.end(), security.begin(), security.end());
  options.push_back(0x01);   // NOP
  options.resize(24, 0x00);  // end of list, padded to 4 bytes
  Bytes data = pattern(1400);
  Bytes packet = with_options(ip4(peer_ip, peer1_ip, 17, data, {.id = 31}), options);
  from_peer0(packet);
  ASSERT_EQ(nic1.transmitted.size(), 3u);  // 528 + 536 + 336 bytes
  Bytes later_options = router_alert;
  later_options.insert(later_options.end(), security.begin(), security.end());
  later_options.resize(16, 0x00);
  Bytes payload;
  for (std::size_t i = 0; i < nic1.transmitted.size(); ++i) {
    const Bytes& f = nic1.transmitted[i];
    EXPECT_LE(f.size() - 14, small_mtu);
    EXPECT_EQ(sent_options(f), i == 0 ? options : later_options) << "fragment " << i;
    EXPECT_EQ(sent_ip(f).fragment_offset, payload.size());
    Bytes part = sent_payload(f);
    payload.insert(payload.end(), part.begin(), part.end());
  }
  EXPECT_EQ(payload, data);
}

}  // namespace
}  // namespace keel::test
