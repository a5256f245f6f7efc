// IPv4 input and output on one interface (RFC 791, RFC 1122 §3.2.1):
// header checks, sources, reassembly through the whole stack, errors,
// fragmentation of replies, routing through the gateway.
#include <algorithm>

#include "net/ip4/icmp4.hpp"
#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Icmp4;
using ::net::wire::Icmp4Repr;
using ::net::wire::Ip4Repr;
namespace icmp = ::net::wire::icmp4;
using ::net::wire::load16;
using ::net::wire::store16;

using Ip4Test = StackTest;

Bytes echo_packet(std::size_t size, uint16_t id = 1) {
  return ip4(peer_ip, stack_ip, 1, icmp_echo(0x1234, 1, pattern(size)), {.id = id});
}

TEST_F(Ip4Test, MalformedHeadersAreDroppedByReason) {
  Bytes good = echo_packet(8);
  inject_ip(Bytes(good.begin(), good.begin() + 19));  // truncated
  Bytes v6 = good;
  v6[0] = 0x65;
  inject_ip(v6);
  Bytes ihl = good;
  ihl[0] = 0x44;
  inject_ip(ihl);
  Bytes ihl_long = good;
  ihl_long[0] = 0x4f;  // 60 bytes of header in a 36-byte packet
  inject_ip(ihl_long);
  Bytes total = good;
  store16(&total[2], 200);
  inject_ip(total);
  Bytes total_small = good;
  store16(&total_small[2], 10);
  inject_ip(total_small);
  Bytes sum = good;
  sum[10] ^= 1;
  inject_ip(sum);
  const auto& c = counters().ip4;
  EXPECT_EQ(c.drop_truncated, 1u);
  EXPECT_EQ(c.drop_bad_version, 1u);
  EXPECT_EQ(c.drop_bad_header_length, 2u);
  EXPECT_EQ(c.drop_bad_total_length, 2u);
  EXPECT_EQ(c.drop_bad_checksum, 1u);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(Ip4Test, BadSourcesAndOtherDestinationsAreDropped) {
  inject_ip(ip4(Ip::broadcast(), stack_ip, 1, icmp_echo(1, 1, {})));
  inject_ip(ip4(Ip{224, 0, 0, 1}, stack_ip, 1, icmp_echo(1, 1, {})));
  inject_ip(ip4(peer_ip, Ip{10, 0, 0, 99}, 1, icmp_echo(1, 1, {})));  // forwarding is off
  inject_ip(ip4(peer_ip, stack_ip, 132, Bytes(20)));                  // SCTP: not here
  EXPECT_EQ(counters().ip4.drop_bad_source, 2u);
  EXPECT_EQ(counters().ip4.drop_not_for_us, 1u);
  EXPECT_EQ(counters().ip4.drop_unknown_protocol, 1u);
  EXPECT_EQ(counters().ip4.forwarded, 0u);
}

TEST_F(Ip4Test, EthernetPaddingIsIgnored) {
  Bytes p = echo_packet(0);
  p.resize(46, 0xee);  // minimum Ethernet payload, padded
  inject_ip(p);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(nic.transmitted[0].size(), 14u + 28u);
  EXPECT_EQ(sent_ip(nic.transmitted[0]).payload_len, 8u);
}

TEST_F(Ip4Test, LowTtlIsStillAccepted) {  // RFC 1122 §3.2.1.7
  inject_ip(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, {}), {.ttl = 0}));
  EXPECT_EQ(nic.transmitted.size(), 1u);
}

// Reassembles what the stack sent back (fragments in order) into one
// payload, checking each fragment's whole header against `header` (its
// offset, MF and length are the fragment's own).
Bytes reassemble_sent(std::deque<Bytes>& frames, Ip4Repr header) {
  Bytes payload;
  while (!frames.empty()) {
    Bytes f = std::move(frames.front());
    frames.pop_front();
    Ip4Repr got = sent_ip(f);
    Bytes data = sent_payload(f);
    header.fragment_offset = uint32_t(payload.size());
    header.more_fragments = got.more_fragments;
    header.payload_len = uint16_t(data.size());
    EXPECT_EQ(got, header);
    EXPECT_LE(f.size(), 14u + 1500u);
    payload.insert(payload.end(), data.begin(), data.end());
    if (!got.more_fragments) break;
  }
  return payload;
}

// What the stack's replies to the peer look like (id: the stack's count).
Ip4Repr reply_header(uint8_t protocol, uint16_t id) {
  return {.src = stack_ip, .dst = peer_ip, .protocol = protocol, .id = id};
}

TEST_F(Ip4Test, PingOf8000BytesIsReassembledAndAnsweredInFragments) {
  Bytes request = echo_packet(8000, 77);
  auto parts = fragments(request, 1480);
  std::reverse(parts.begin(), parts.end());  // out of order
  for (auto& p : parts) inject_ip(p);
  EXPECT_EQ(counters().ip4.reassembled, 1u);
  ASSERT_EQ(nic.transmitted.size(), 6u);  // 8008 bytes of ICMP in 1480-byte pieces
  Bytes reply = reassemble_sent(nic.transmitted, reply_header(1, 1));
  ASSERT_EQ(reply.size(), 8008u);
  ::net::wire::Icmp4View<const uint8_t> v(reply.data(), reply.size());
  EXPECT_EQ(v.check(), ::net::wire::Icmp4Error::none);
  EXPECT_EQ(Icmp4Repr::parse(v), Icmp4Repr::echo(icmp::echo_reply, 0x1234, 1));
  EXPECT_TRUE(std::equal(reply.begin() + 8, reply.end(), request.begin() + 28));
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
}

TEST_F(Ip4Test, IdenticalOverlapsAreAcceptedConflictingOnesDiscardTheDatagram) {
  Bytes request = echo_packet(3000, 5);
  auto parts = fragments(request, 1000);
  inject_ip(parts[0]);
  inject_ip(parts[0]);  // duplicate
  inject_ip(parts[1]);
  inject_ip(parts[2]);
  inject_ip(parts[3]);
  EXPECT_EQ(counters().ip4.reassembled, 1u);
  nic.transmitted.clear();

  Bytes other = echo_packet(3000, 6);
  auto bad = fragments(other, 1000);
  Bytes evil = bad[1];
  evil[30] ^= 0xff;  // same range, different bytes
  inject_ip(bad[0]);
  inject_ip(bad[1]);
  inject_ip(evil);
  inject_ip(bad[2]);
  inject_ip(bad[3]);
  EXPECT_EQ(counters().ip4.drop_fragment_overlap, 1u);
  EXPECT_EQ(counters().ip4.reassembled, 1u);  // the second never completes
}

TEST_F(Ip4Test, BadFragmentsAreCounted) {
  inject_ip(ip4(peer_ip, stack_ip, 1, pattern(100), {.id = 9, .fragment = 0x2000}));  // MF, not 8n
  inject_ip(ip4(peer_ip, stack_ip, 1, pattern(800), {.id = 9, .fragment = 0x1fff}));  // past 65535
  inject_ip(ip4(peer_ip, stack_ip, 1, {}, {.id = 9, .fragment = 0x2001}));            // empty
  EXPECT_EQ(counters().ip4.drop_fragment_bad, 2u);
  EXPECT_EQ(counters().ip4.drop_fragment_too_big, 1u);
  // A last fragment whose end contradicts data already received.
  inject_ip(ip4(peer_ip, stack_ip, 1, pattern(800), {.id = 10, .fragment = 0x2000 | 100}));
  inject_ip(ip4(peer_ip, stack_ip, 1, pattern(8), {.id = 10, .fragment = 10}));
  EXPECT_EQ(counters().ip4.drop_fragment_overlap, 1u);
}

TEST_F(Ip4Test, EndlessFragmentsAreBoundedAndTimedOut) {
  // Many datagrams that never complete: the source's share of reassembly
  // memory bounds them; its oldest go first, each counted.
  for (uint16_t id = 0; id < 1000; ++id) {
    inject_ip(ip4(peer_ip, stack_ip, 1, pattern(1480), {.id = id, .fragment = 0x2000}));
    inject_ip(ip4(peer_ip, stack_ip, 1, pattern(1480), {.id = id, .fragment = 0x2000 | 400}));
  }
  uint64_t evicted = counters().ip4.drop_fragment_source_limit;
  EXPECT_GT(evicted, 0u);
  EXPECT_LT(evicted, 1000u);
  advance(16s);
  EXPECT_EQ(counters().ip4.drop_fragment_timeout, 1000u - evicted);
  // RFC 792: time exceeded for those whose first fragment came (all), rate
  // limited like every ICMP error.
  EXPECT_EQ(counters().icmp4.tx_time_exceeded + counters().icmp4.drop_rate_limited,
            1000u - evicted);
  EXPECT_EQ(sent_icmp(nic.transmitted.back()),
            (Icmp4Repr{icmp::time_exceeded, icmp::reassembly_time_exceeded, 0}));
  nic.transmitted.clear();
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
  // And reassembly still works afterwards.
  for (auto& p : fragments(echo_packet(2000, 4242), 1480)) inject_ip(p);
  EXPECT_EQ(nic.transmitted.size(), 2u);
}

// Eight pings in two 16-byte fragments each from an on-link address that
// never answers ARP: the replies wait for ARP, but hold no reassembly
// memory, so another peer's fragmented pings are still answered.
TEST_F(Ip4Test, RepliesWaitingForArpDoNotPinReassembly) {
  Ip silent{10, 0, 0, 77};
  for (int round = 0; round < 3; ++round) {
    for (uint16_t n = 0; n < 8; ++n) {
      Bytes ping =
          ip4(silent, stack_ip, 1, icmp_echo(9, n, pattern(24)), {.id = uint16_t(round * 8 + n)});
      for (auto& p : fragments(ping, 16)) inject_ip(p);
    }
    nic.transmitted.clear();
    for (auto& p : fragments(echo_packet(3000, uint16_t(500 + round)), 1480)) inject_ip(p);
    Bytes reply = reassemble_sent(nic.transmitted, reply_header(1, uint16_t(9 + round * 9)));
    EXPECT_EQ(reply.size(), 3008u);
    advance(250ms);
  }
  EXPECT_EQ(counters().ip4.reassembled, 27u);
  EXPECT_GE(link_counters().arp.queued, 16u);  // the replies to the silent address
}

TEST_F(Ip4Test, UnknownProtocolIsAnsweredWithProtocolUnreachable) {  // RFC 1122 §3.2.2.1
  Bytes sctp = ip4(peer_ip, stack_ip, 132, pattern(40));
  inject_ip(sctp);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  Ip4Repr expected = reply_header(1, 1);
  expected.payload_len = uint16_t(8 + sctp.size());  // all of it (RFC 1812 §4.3.2.3)
  EXPECT_EQ(sent_ip(f), expected);
  EXPECT_EQ(sent_icmp(f), (Icmp4Repr{icmp::unreachable, icmp::protocol_unreachable, 0}));
  Bytes quoted = sent_payload(f);
  EXPECT_TRUE(std::equal(quoted.begin() + 8, quoted.end(), sctp.begin(), sctp.end()));
  EXPECT_EQ(counters().icmp4.tx_protocol_unreachable, 1u);
  EXPECT_EQ(counters().ip4.drop_unknown_protocol, 1u);
  // Never about a broadcast (RFC 1122 §3.2.2).
  inject_ip(ip4(peer_ip, Ip{10, 0, 0, 255}, 132, pattern(40)));
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(Ip4Test, ProtocolUnreachableIsRateLimitedLikeOtherErrors) {
  for (int i = 0; i < 200; ++i)
    inject_ip(ip4(peer_ip, stack_ip, 132, pattern(8), {.id = uint16_t(i)}));
  EXPECT_EQ(counters().icmp4.tx_protocol_unreachable, Icmp4::error_burst);
  EXPECT_EQ(counters().icmp4.drop_rate_limited, 200u - Icmp4::error_burst);
}

// A header with options on fragment zero, the rest with plain headers:
// the payload fits each fragment's check, but the whole would be 65575
// bytes ("ping of death"). It must be dropped, not handed up.
TEST_F(Ip4Test, ReassemblyOverTheIpv4MaximumIsDropped) {
  constexpr uint16_t id = 4711;
  constexpr std::size_t chunk = 1480, payload_total = 65515;
  // A 60-byte header (IHL 15) of NOP options.
  Bytes first = with_options(
      ip4(peer_ip, stack_ip, 17, pattern(chunk), {.id = id, .fragment = 0x2000}), Bytes(40, 0x01));
  inject_ip(first);
  for (std::size_t offset = chunk; offset < payload_total; offset += chunk) {
    std::size_t n = std::min(chunk, payload_total - offset);
    bool last = offset + n == payload_total;
    uint16_t field = uint16_t((last ? 0 : 0x2000) | offset / 8);
    inject_ip(ip4(peer_ip, stack_ip, 17, pattern(n), {.id = id, .fragment = field}));
  }
  EXPECT_EQ(counters().ip4.reassembled, 0u);
  EXPECT_EQ(counters().ip4.drop_fragment_too_big, 1u);
  EXPECT_EQ(counters().udp.rx, 0u);
}

TEST_F(Ip4Test, ZeroLoopbackAndOwnSourcesAreDropped) {  // RFC 1122 §3.2.1.3
  inject_ip(ip4(Ip{0, 0, 0, 0}, stack_ip, 1, icmp_echo(1, 1, {})));
  inject_ip(ip4(Ip{127, 0, 0, 1}, stack_ip, 1, icmp_echo(1, 1, {})));
  inject_ip(ip4(stack_ip, stack_ip, 1, icmp_echo(1, 1, {})));
  EXPECT_EQ(counters().ip4.drop_bad_source, 3u);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(Ip4Test, NoTimeExceededAboutABroadcastDatagram) {  // RFC 1122 §3.2.2
  inject_ip(ip4(peer_ip, Ip{10, 0, 0, 255}, 1, pattern(1480), {.id = 3, .fragment = 0x2000}));
  advance(16s);
  EXPECT_EQ(counters().ip4.drop_fragment_timeout, 1u);
  EXPECT_EQ(counters().icmp4.tx_time_exceeded, 0u);
}

TEST_F(Ip4Test, SendRoutesViaGatewayOffLink) {
  EXPECT_EQ(send(Ip{192, 168, 1, 1}, 53, "q"), ::net::Status::ok);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(ethertype(f), 0x0806);
  EXPECT_EQ(sent_arp(f).target_ip, (Ip{10, 0, 0, 254}));
  // Once the gateway answers, the datagram goes to its MAC, addressed to
  // the far host.
  Mac gateway_mac{{0x02, 0, 0, 0, 0, 0xfe}};
  nic.inject(ethernet(stack_mac, gateway_mac, 0x0806,
                      arp(2, gateway_mac, Ip{10, 0, 0, 254}, stack_mac, stack_ip)));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  f = nic.pop();
  EXPECT_EQ(sent_ethernet(f).dst, gateway_mac);
  EXPECT_EQ(
      sent_ip(f),
      (Ip4Repr{
          .src = stack_ip, .dst = Ip{192, 168, 1, 1}, .protocol = 17, .id = 1, .payload_len = 9}));
}

TEST_F(Ip4Test, NoRouteWithoutGateway) {
  iface.configure(stack_ip, ::net::ip4::netmask_of(24));
  EXPECT_EQ(send(Ip{192, 168, 1, 1}, 53, "q"), ::net::Status::no_route);
  EXPECT_EQ(counters().ip4.drop_no_route, 1u);
}

TEST_F(Ip4Test, NotConfiguredBeforeAnAddress) {
  iface.deconfigure();
  EXPECT_EQ(send(peer_ip, 53, "q"), ::net::Status::not_configured);
  EXPECT_TRUE(nic.transmitted.empty());
}

// The inline sum of a plain 20-byte header (wire::ip4_header_checksum) against
// RFC 1071's definition, word by word: carries, odd patterns, and the
// 24-byte header (options) that takes the general path.
TEST(Ip4HeaderChecksum, MatchesRfc1071WordSum) {
  auto reference = [](const std::vector<uint8_t>& h) {
    uint32_t sum = 0;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2) sum += uint32_t(h[i] << 8 | h[i + 1]);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(~sum);
  };
  std::vector<std::vector<uint8_t>> headers = {
      std::vector<uint8_t>(20, 0x00), std::vector<uint8_t>(20, 0xff),
      std::vector<uint8_t>(24, 0xff), std::vector<uint8_t>(24, 0x5a)};
  std::vector<uint8_t> counting(20);
  for (std::size_t i = 0; i < counting.size(); ++i) counting[i] = uint8_t(i * 37 + 11);
  headers.push_back(counting);
  for (const auto& h : headers) {
    EXPECT_EQ(::net::wire::ip4_header_checksum(h.data(), h.size()), reference(h)) << h.size();
  }
  Ip4Repr r;  // an emitted header checks out whole
  r.src = Ip{10, 0, 0, 1};
  r.dst = Ip{10, 0, 0, 2};
  r.protocol = 17;
  r.payload_len = 12;
  std::vector<uint8_t> out(20);
  r.emit(out.data());
  EXPECT_EQ(reference(out), 0);
}

}  // namespace
}  // namespace keel::test
