// IPv6 input (RFC 8200): header checks, the extension-header walk with its
// limits, and parameter problems where the RFC asks for them. Whole packets
// in, whole packets out.
#include "ip6_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::wire::Ip6Repr;
namespace ip6a = ::net::ip6addr;

using Ip6Test = Ip6StackTest;

// An extension header of `type`'s layout carrying `next` and `body` (padded
// by the caller to a multiple of 8 with the first two bytes).
Bytes extension(uint8_t next, const Bytes& body) {
  Bytes h{next, uint8_t((body.size() + 2) / 8 - 1)};
  h.insert(h.end(), body.begin(), body.end());
  return h;
}
// Options headers (hop-by-hop, destination): one option of `type` with 2
// bytes of data, then PadN to 8 bytes.
Bytes options(uint8_t next, uint8_t type) { return extension(next, {type, 2, 0, 0, 1, 0}); }
Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
// The parameter problem the stack sent about `offending`: code and pointer.
void expect_parameter_problem(const Bytes& frame, uint8_t code, uint32_t pointer,
                              const Bytes& offending) {
  EXPECT_EQ(sent_ip6(frame),
            (Ip6Repr{stack_ip6, peer_ip6, 58, 64, uint16_t(8 + offending.size())}));
  Bytes m = sent_icmp6(frame);
  EXPECT_EQ(m[0], 4);
  EXPECT_EQ(m[1], code);
  EXPECT_EQ(::net::wire::load32(&m[4]), pointer);
  EXPECT_EQ(Bytes(m.begin() + 8, m.end()), offending);
}

TEST_F(Ip6Test, EchoRequestIsAnsweredFromTheAddressItWasSentTo) {
  Bytes request = echo6(stack_ip6, 0x4242, 9, pattern(100));
  inject6(ip6(peer_ip6, stack_ip6, 58, request));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(sent_ethernet(f),
            (::net::wire::EthernetRepr{peer_mac, stack_mac, ::net::wire::ethertype_ip6}));
  EXPECT_EQ(sent_ip6(f), (Ip6Repr{stack_ip6, peer_ip6, 58, 64, uint16_t(request.size())}));
  Bytes reply = sent_icmp6(f);
  EXPECT_EQ(reply[0], 129);
  EXPECT_EQ(Bytes(reply.begin() + 4, reply.end()), Bytes(request.begin() + 4, request.end()));
  EXPECT_EQ(icmp6_counters().tx_echo_replies, 1u);
}

TEST_F(Ip6Test, BadHeadersAreCountedDrops) {
  Bytes good = ip6(peer_ip6, stack_ip6, 58, echo6(stack_ip6));
  inject6(Bytes(good.begin(), good.begin() + 39));
  Bytes v4 = good;
  v4[0] = 0x45;
  inject6(v4);
  Bytes longer = good;
  longer[5] += 1;  // payload length one past the frame
  inject6(longer);
  inject6(ip6(ip6_of("ff02::1"), stack_ip6, 58, echo6(stack_ip6)));  // group source
  inject6(ip6(peer_ip6, ip6_of("::1"), 58, echo6(stack_ip6)));       // loopback on a wire
  inject6(ip6(stack_ip6, stack_ip6, 58, echo6(stack_ip6)));          // our own source
  inject6(ip6(peer_ip6, ip6_of("fd00::99"), 58, echo6(ip6_of("fd00::99"))));
  EXPECT_EQ(ip6_counters().drop_truncated, 1u);
  EXPECT_EQ(ip6_counters().drop_bad_version, 1u);
  EXPECT_EQ(ip6_counters().drop_bad_payload_length, 1u);
  EXPECT_EQ(ip6_counters().drop_bad_address, 3u);
  EXPECT_EQ(ip6_counters().drop_not_for_us, 1u);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(Ip6Test, EthernetPaddingIsTrimmed) {
  Bytes padded = ip6(peer_ip6, stack_ip6, 58, echo6(stack_ip6));
  padded.resize(padded.size() + 20, 0xee);
  inject6(padded);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip6(nic.pop()).payload_len, 10u);
}

TEST_F(Ip6Test, UnknownNextHeaderGetsParameterProblemPointingAtIt) {  // RFC 8200 §4
  Bytes packet = ip6(peer_ip6, stack_ip6, 253, Bytes(8, 0));
  inject6(packet);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  expect_parameter_problem(nic.pop(), 1, 6, packet);
  // Behind a destination options header: the pointer names its field.
  Bytes behind = ip6(peer_ip6, stack_ip6, 60, concat(options(253, 0x1e), Bytes(8, 0)));
  inject6(behind);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  expect_parameter_problem(nic.pop(), 1, 40, behind);
  // Never about a packet to a group (RFC 4443 §2.4 (e.3)).
  inject6(ip6(peer_ip6, ip6a::all_nodes(), 253, Bytes(8, 0)),
          ip6a::multicast_mac(ip6a::all_nodes()));
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(ip6_counters().drop_unknown_next_header, 3u);
}

TEST_F(Ip6Test, ExtensionHeadersAreWalkedToTheUpperLayer) {
  Bytes echo = echo6(stack_ip6);
  // Hop-by-hop (a skippable option), destination options, routing with no
  // segments left, an atomic fragment (RFC 6946), then ICMPv6.
  Bytes chain = concat(
      concat(concat(options(60, 0x1e), options(43, 0x1e)), extension(44, {0, 0, 0, 0, 0, 0})),
      concat(Bytes{58, 0, 0, 0, 0, 0, 0, 7}, echo));
  inject6(ip6(peer_ip6, stack_ip6, 0, chain));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_icmp6(nic.pop())[0], 129);
  EXPECT_EQ(ip6_counters().rx_atomic_fragments, 1u);
}

TEST_F(Ip6Test, UnknownOptionsFollowTheirActionBits) {  // RFC 8200 §4.2
  auto with = [](uint8_t type, const Ip6& dst) {
    return ip6(peer_ip6, dst, 60, concat(options(58, type), echo6(dst)));
  };
  inject6(with(0x3e, stack_ip6));  // 00: skipped
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_icmp6(nic.pop())[0], 129);
  inject6(with(0x7e, stack_ip6));  // 01: discarded silently
  EXPECT_TRUE(nic.transmitted.empty());
  Bytes report = with(0xbe, stack_ip6);  // 10: parameter problem code 2 at the option
  inject6(report);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  expect_parameter_problem(nic.pop(), 2, 42, report);
  Mac all_nodes_mac = ip6a::multicast_mac(ip6a::all_nodes());
  inject6(with(0xbe, ip6a::all_nodes()), all_nodes_mac);  // 10: even about a group
  EXPECT_EQ(nic.transmitted.size(), 1u);
  nic.transmitted.clear();
  inject6(with(0xfe, ip6a::all_nodes()), all_nodes_mac);  // 11: not about a group
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(ip6_counters().drop_unknown_option, 4u);
}

TEST_F(Ip6Test, RoutingHeaderWithSegmentsLeftIsRefused) {  // RFC 5095 §3
  Bytes type0 = extension(58, {0, 1, 0, 0, 0, 0});
  type0.insert(type0.end(), 16, 0);  // one address
  type0[1] = 2;
  Bytes packet = ip6(peer_ip6, stack_ip6, 43, concat(type0, echo6(stack_ip6)));
  inject6(packet);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  expect_parameter_problem(nic.pop(), 0, 42, packet);
  EXPECT_EQ(ip6_counters().drop_routing_header, 1u);
}

TEST_F(Ip6Test, HopByHopOnlyFirst) {  // RFC 8200 §4.1
  Bytes packet = ip6(peer_ip6, stack_ip6, 60, concat(options(0, 0x1e), options(58, 0x1e)));
  inject6(packet);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  expect_parameter_problem(nic.pop(), 1, 40, packet);
  EXPECT_EQ(ip6_counters().drop_bad_extension, 1u);
}

TEST_F(Ip6Test, LongChainsAndTruncatedHeadersAreDropped) {
  Bytes chain = echo6(stack_ip6);
  for (int i = 0; i < ::net::Ip6::max_extension_headers + 1; ++i)
    chain = concat(options(i == 0 ? 58 : 60, 0x1e), chain);
  inject6(ip6(peer_ip6, stack_ip6, 60, chain));
  inject6(ip6(peer_ip6, stack_ip6, 60, Bytes{58, 3, 1, 4}));  // length past the packet
  inject6(ip6(peer_ip6, stack_ip6, 59, Bytes(8)));            // no next header
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(ip6_counters().drop_too_many_extensions, 1u);
  EXPECT_EQ(ip6_counters().drop_bad_extension, 1u);
  EXPECT_EQ(ip6_counters().drop_no_next_header, 1u);
}

TEST_F(Ip6Test, ErrorsAreRateLimited) {  // RFC 4443 §2.4 (f)
  for (int i = 0; i < 60; ++i) inject6(ip6(peer_ip6, stack_ip6, 253, Bytes(8, uint8_t(i))));
  EXPECT_EQ(nic.transmitted.size(), 50u);
  EXPECT_EQ(icmp6_counters().drop_rate_limited, 10u);
  nic.transmitted.clear();
  advance(100ms);  // 100 per second: ten more
  for (int i = 0; i < 20; ++i) inject6(ip6(peer_ip6, stack_ip6, 253, Bytes(8, uint8_t(i))));
  EXPECT_EQ(nic.transmitted.size(), 10u);
}

TEST_F(Ip6Test, NoErrorAboutAnError) {  // RFC 4443 §2.4 (e.1)
  Bytes error = icmp6(peer_ip6, stack_ip6, 1, 4, 0, Bytes(48));
  inject6(ip6(peer_ip6, stack_ip6, 60, concat(options(58, 0xbe), error)));
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(ip6_counters().drop_unknown_option, 1u);
}

TEST_F(Ip6Test, BadChecksumsAreCounted) {
  Bytes bad = echo6(stack_ip6);
  bad[9] ^= 1;
  inject6(ip6(peer_ip6, stack_ip6, 58, bad));
  inject6(ip6(peer_ip6, stack_ip6, 58, Bytes(7)));
  EXPECT_EQ(icmp6_counters().drop_bad_checksum, 1u);
  EXPECT_EQ(icmp6_counters().drop_truncated, 1u);
  EXPECT_TRUE(nic.transmitted.empty());
}

// Decision 0130: an interface given no IPv6 address takes no IPv6 at all, link-local
// included, and has no IPv6 route.
TEST_F(StackTest, AnInterfaceGivenNoIpv6AddressTakesNoIpv6) {
  nic.transmitted.clear();
  const Bytes echo = icmp6(peer_link_local, stack_link_local, 128, 0, 7 << 16 | 1, {1, 2});
  nic.inject(ip6_frame(ip6(peer_link_local, stack_link_local, 58, echo)));
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(link_counters().ethernet.drop_ip6_off, 1u);
  EXPECT_EQ(counters().ip6.rx, 0u);
  auto socket = *stack.udp().bind(0);
  EXPECT_EQ(socket.send_to({peer_link_local, 9}, "a", 1), ::net::Status::no_route);
  EXPECT_TRUE(nic.transmitted.empty());
}

// IPv6 passes the hooks IPv4 does, its family named (decision 0135): a hook
// sees the request at prerouting and input, the reply at output and
// postrouting, each at its IPv6 header; a drop at input leaves no reply.
TEST_F(Ip6Test, HooksSeeIpv6WithItsFamily) {
  using ::net::Hook;
  std::vector<std::pair<Hook, Ip6>> seen;
  for (Hook hook : {Hook::prerouting, Hook::input, Hook::output, Hook::postrouting}) {
    stack.hooks().add(hook, 0, [&seen](::net::HookPacket& p) {
      EXPECT_EQ(p.family, ::net::Address::Family::ip6);
      ::net::wire::Ip6View<uint8_t> v(p.packet.data(), p.packet.size());
      EXPECT_EQ(v.check(), ::net::wire::Ip6Error::none);
      seen.emplace_back(p.hook, v.dst());
      return ::net::Verdict::accept;
    });
  }
  inject6(ip6(peer_ip6, stack_ip6, 58, echo6(stack_ip6)));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(seen, (std::vector<std::pair<Hook, Ip6>>{{Hook::prerouting, stack_ip6},
                                                     {Hook::input, stack_ip6},
                                                     {Hook::output, peer_ip6},
                                                     {Hook::postrouting, peer_ip6}}));
  nic.transmitted.clear();
  stack.hooks().add(Hook::input, 1, [](::net::HookPacket&) { return ::net::Verdict::drop; });
  inject6(ip6(peer_ip6, stack_ip6, 58, echo6(stack_ip6, 7, 2)));
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(ip6_counters().drop_by_hook, 1u);
}

}  // namespace
}  // namespace keel::test
