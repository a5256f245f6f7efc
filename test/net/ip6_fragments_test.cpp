// IPv6 fragments through the whole stack (RFC 8200 §4.5): reassembly of
// what a peer sends (reordered, duplicated, overlapping, late, malformed,
// hostile), and source fragmentation of what the stack sends (echo replies
// to big pings, big UDP datagrams). The store's IPv4 side, on its own, is
// reassembly_test.cpp; both families run the same code.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "ip6_fixture.hpp"
#include "net/stack_parts.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

constexpr uint8_t next_fragment = 44, next_icmp6 = 58, next_udp = 17, next_destination = 60;

// `upper` (an upper-layer message from the peer) as IPv6 fragments of at
// most `chunk` bytes of it each (a multiple of 8), with identification `id`,
// behind the given unfragmentable extension headers (`unfragmentable`,
// their first named by the IPv6 header, the last's next header 44).
std::vector<Bytes> fragments6(const Bytes& upper, uint8_t next, uint32_t id, std::size_t chunk,
                              const Ip6& dst = stack_ip6) {
  std::vector<Bytes> out;
  for (std::size_t offset = 0; offset < upper.size(); offset += chunk) {
    std::size_t n = std::min(chunk, upper.size() - offset);
    bool more = offset + n < upper.size();
    Bytes f{next, 0, 0, 0, 0, 0, 0, 0};
    ::net::wire::store16(&f[2], uint16_t(offset | (more ? 1 : 0)));
    ::net::wire::store32(&f[4], id);
    f.insert(f.end(), upper.begin() + long(offset), upper.begin() + long(offset + n));
    out.push_back(ip6(peer_ip6, dst, next_fragment, f));
  }
  return out;
}

// One fragment by hand: offset in bytes (a multiple of 8), M flag, data.
Bytes fragment6(uint32_t id, uint32_t offset, bool more, const Bytes& data,
                uint8_t next = next_icmp6) {
  Bytes f{next, 0, 0, 0, 0, 0, 0, 0};
  ::net::wire::store16(&f[2], uint16_t(offset | (more ? 1 : 0)));
  ::net::wire::store32(&f[4], id);
  f.insert(f.end(), data.begin(), data.end());
  return ip6(peer_ip6, stack_ip6, next_fragment, f);
}

class Ip6FragmentsTest : public Ip6StackTest {
 protected:
  // The one frame sent is an ICMPv6 parameter problem (RFC 4443 §3.4) with this code and
  // pointer; `message` gets its ICMPv6 message. Call inside ASSERT_NO_FATAL_FAILURE.
  void expect_parameter_problem(uint8_t code, uint32_t pointer, Bytes& message) {
    ASSERT_EQ(nic.transmitted.size(), 1u);
    message = sent_icmp6(nic.pop());
    EXPECT_EQ(message[0], 4);
    EXPECT_EQ(message[1], code);
    EXPECT_EQ(::net::wire::load32(&message[4]), pointer);
  }

  // The frames the stack sent, as one IPv6 datagram each: fragments (all
  // checked: at most the MTU, multiples of 8 but the last, one
  // identification per datagram) reassembled by the test.
  struct Sent {
    ::net::wire::Ip6Repr header;  // of the whole
    Bytes upper;
    std::size_t fragments = 0;
    uint32_t id = 0;
  };
  std::vector<Sent> sent() {
    std::vector<Sent> out;
    std::map<uint32_t, std::size_t> by_id;
    while (!nic.transmitted.empty()) {
      Bytes frame = nic.pop();
      EXPECT_LE(frame.size() - 14, 1500u);
      auto h = sent_ip6(frame);
      Bytes payload = sent_payload6(frame);
      if (h.next_header != next_fragment) {
        out.push_back({h, payload, 0, 0});
        continue;
      }
      uint16_t field = ::net::wire::load16(&payload[2]);
      uint32_t id = ::net::wire::load32(&payload[4]);
      uint32_t offset = field & 0xfff8u;
      bool more = field & 1;
      Bytes data(payload.begin() + 8, payload.end());
      if (more) EXPECT_EQ(data.size() % 8, 0u);
      auto [it, fresh] = by_id.try_emplace(id, out.size());
      if (fresh) {
        out.push_back({h, {}, 0, id});
        out.back().header.next_header = payload[0];
      }
      Sent& s = out[it->second];
      ++s.fragments;
      if (s.upper.size() < offset + data.size()) s.upper.resize(offset + data.size());
      std::copy(data.begin(), data.end(), s.upper.begin() + offset);
    }
    for (Sent& s : out) s.header.payload_len = uint16_t(s.upper.size());
    return out;
  }
  void inject_all(const std::vector<Bytes>& packets) {
    for (const Bytes& p : packets) inject6(p);
  }
};

TEST_F(Ip6FragmentsTest, BigPingInFragmentsIsAnsweredInFragments) {
  Bytes request = echo6(stack_ip6, 7, 1, pattern(3000));
  inject_all(fragments6(request, next_icmp6, 0x12345678, 1232));
  auto replies = sent();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].fragments, 3u);  // 3008 bytes in 1448-byte pieces
  EXPECT_EQ(replies[0].header.next_header, next_icmp6);
  Bytes expected = icmp6(stack_ip6, peer_ip6, 129, 0, 7u << 16 | 1, pattern(3000));
  EXPECT_EQ(replies[0].upper, expected);
  EXPECT_EQ(ip6_counters().rx_fragments, 3u);
  EXPECT_EQ(ip6_counters().reassembled, 1u);
  EXPECT_EQ(ip6_counters().tx_fragments, 3u);
  EXPECT_EQ(icmp6_counters().tx_echo_replies, 1u);
}

TEST_F(Ip6FragmentsTest, ReorderedAndDuplicatedFragmentsComplete) {
  Bytes request = echo6(stack_ip6, 7, 2, pattern(5000, 3));
  auto parts = fragments6(request, next_icmp6, 99, 1000);
  std::reverse(parts.begin(), parts.end());
  parts.insert(parts.begin() + 2, parts[1]);  // a duplicate, before the datagram completes
  inject_all(parts);
  auto replies = sent();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].upper, icmp6(stack_ip6, peer_ip6, 129, 0, 7u << 16 | 2, pattern(5000, 3)));
  EXPECT_EQ(ip6_counters().drop_fragment_overlap, 0u);
}

TEST_F(Ip6FragmentsTest, LargestPingIsAnswered) {
  // 65535 bytes of payload: a Fragment header and 65527 bytes of ICMPv6.
  Bytes request = echo6(stack_ip6, 7, 3, pattern(65527 - 8, 5));
  inject_all(fragments6(request, next_icmp6, 1, 1448));
  auto replies = sent();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].upper.size(), 65527u);
  EXPECT_EQ(replies[0].fragments, (65527u + 1447) / 1448);
}

TEST_F(Ip6FragmentsTest, UdpInFragmentsReachesTheSocketAndBigSendsGoInFragments) {
  auto socket = *stack.udp().bind(7);
  Bytes got;
  socket.on_read([&got, socket](const ::net::UdpDatagram& d) mutable {
    got.assign(d.payload.begin(), d.payload.end());
    EXPECT_EQ(socket.send_to(d.source, d.payload, d.destination.address), ::net::Status::ok);
  });
  Bytes data = pattern(4000, 9);
  inject_all(fragments6(udp6(peer_ip6, stack_ip6, 5000, 7, data), next_udp, 77, 1448));
  EXPECT_EQ(got, data);
  auto echoes = sent();
  ASSERT_EQ(echoes.size(), 1u);
  EXPECT_EQ(echoes[0].upper, udp6(stack_ip6, peer_ip6, 7, 5000, data));
  EXPECT_EQ(echoes[0].fragments, 3u);
}

TEST_F(Ip6FragmentsTest, LargestUdpDatagramGoesOut) {
  auto socket = *stack.udp().bind(0);
  std::string largest(::net::Udp::max_payload6, 'y');
  ASSERT_EQ(socket.send_to({peer_ip6, 9}, largest.data(), largest.size()), ::net::Status::ok);
  EXPECT_EQ(socket.send_to({peer_ip6, 9}, largest.data(), largest.size() + 1),
            ::net::Status::too_big);
  auto all = sent();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].upper.size(), 65535u);  // the largest payload length
}

TEST_F(Ip6FragmentsTest, IdentificationsDifferBetweenDatagrams) {
  std::string big(3000, 'x');
  auto socket = *stack.udp().bind(0);
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(socket.send_to({peer_ip6, 9}, big.data(), big.size()), ::net::Status::ok);
  auto all = sent();
  ASSERT_EQ(all.size(), 4u);
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j) EXPECT_NE(all[i].id, all[j].id);
  // Not a counter: consecutive identifications are not one apart.
  EXPECT_NE(all[1].id - all[0].id, 1u);
}

TEST_F(Ip6FragmentsTest, AnyOverlapDiscardsTheDatagram) {  // RFC 5722
  Bytes request = echo6(stack_ip6, 7, 4, pattern(3000));
  auto parts = fragments6(request, next_icmp6, 5, 1232);
  // The same bytes again, but from 8 bytes before the second fragment:
  // part duplicate, part new. Linux discards it too (inet_frag_queue_insert).
  Bytes overlapping(request.begin() + 1224, request.begin() + 1224 + 16);
  inject6(parts[0]);
  inject6(fragment6(5, 1224, true, overlapping));
  inject6(parts[1]);
  inject6(parts[2]);
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(ip6_counters().drop_fragment_overlap, 1u);
  EXPECT_EQ(ip6_counters().reassembled, 0u);
}

TEST_F(Ip6FragmentsTest, DuplicateWithOtherBytesDiscardsTheDatagram) {
  Bytes request = echo6(stack_ip6, 7, 4, pattern(3000));
  auto parts = fragments6(request, next_icmp6, 6, 1232);
  Bytes changed = parts[1];
  changed.back() ^= 1;
  inject6(parts[1]);
  inject6(changed);
  inject6(parts[0]);
  inject6(parts[2]);
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(ip6_counters().drop_fragment_overlap, 1u);
}

TEST_F(Ip6FragmentsTest, TimeoutAfterSixtySecondsSendsTimeExceededOnlyWithFragmentZero) {
  Bytes request = echo6(stack_ip6, 7, 5, pattern(3000));
  auto parts = fragments6(request, next_icmp6, 8, 1232);
  inject6(parts[0]);  // fragment zero: the source hears of the timeout
  auto later = fragments6(echo6(stack_ip6, 7, 6, pattern(3000)), next_icmp6, 9, 1232);
  inject6(later[1]);  // no fragment zero: silence
  advance(59s);
  EXPECT_TRUE(nic.transmitted.empty());
  advance(1s);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes frame = nic.pop();
  EXPECT_EQ(sent_ip6(frame).dst, peer_ip6);
  Bytes m = sent_icmp6(frame);
  EXPECT_EQ(m[0], 3);  // time exceeded
  EXPECT_EQ(m[1], 1);  // fragment reassembly time exceeded
  // It quotes fragment zero from its IPv6 header on.
  ASSERT_GE(m.size(), 8 + 40 + 8 + 8u);
  EXPECT_TRUE(std::equal(m.begin() + 8, m.end(), parts[0].begin()));
  EXPECT_EQ(ip6_counters().drop_fragment_timeout, 2u);
  EXPECT_EQ(icmp6_counters().tx_time_exceeded, 1u);
  EXPECT_EQ(stack.counters().ip6.rx_fragments, 2u);
}

TEST_F(Ip6FragmentsTest, LengthNotAMultipleOfEightWithMoreIsAParameterProblem) {
  Bytes packet = fragment6(10, 0, true, Bytes(13, 0x80));
  inject6(packet);
  Bytes m;
  ASSERT_NO_FATAL_FAILURE(expect_parameter_problem(0, 4, m));  // the payload length field
  EXPECT_EQ(Bytes(m.begin() + 8, m.end()), packet);
  EXPECT_EQ(ip6_counters().drop_fragment_bad, 1u);
}

TEST_F(Ip6FragmentsTest, PingOfDeathIsAParameterProblemAtTheOffset) {
  // Offset 65528 and 16 bytes: the whole would be 65544 + 8 bytes long.
  Bytes packet = fragment6(11, 65528, false, Bytes(16, 2));
  inject6(packet);
  Bytes m;
  ASSERT_NO_FATAL_FAILURE(expect_parameter_problem(0, 42, m));  // the Fragment header's offset
  EXPECT_EQ(ip6_counters().drop_fragment_too_big, 1u);
  EXPECT_EQ(stack.counters().ip6.drop_fragment_timeout, 0u);
  EXPECT_EQ(ip6_counters().reassembled, 0u);
}

TEST_F(Ip6FragmentsTest, FirstFragmentWithoutTheUpperLayerHeaderIsRefused) {  // RFC 7112
  // A Destination Options header of 16 bytes, only 8 of them in fragment zero.
  Bytes options{next_udp, 1, 1, 12, 0, 0, 0, 0};
  Bytes packet = fragment6(12, 0, true, options, next_destination);
  inject6(packet);
  Bytes m;
  ASSERT_NO_FATAL_FAILURE(expect_parameter_problem(3, 0, m));
  // The whole 16 bytes, but none of the UDP header behind: the same.
  Bytes whole_options{next_udp, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  inject6(fragment6(13, 0, true, whole_options, next_destination));
  EXPECT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(ip6_counters().drop_fragment_incomplete_chain, 2u);
}

TEST_F(Ip6FragmentsTest, AtomicFragmentsAreStillTakenWhole) {  // RFC 6946
  Bytes request = echo6(stack_ip6, 7, 8, pattern(100));
  inject6(fragment6(14, 0, false, request));
  auto replies = sent();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].fragments, 0u);
  EXPECT_EQ(ip6_counters().rx_atomic_fragments, 1u);
  EXPECT_EQ(ip6_counters().rx_fragments, 0u);
}

TEST_F(Ip6FragmentsTest, TinyFragmentsAndNestedFragmentsAreCountedDrops) {
  // Eight bytes at a time: fragment zero holds the ICMPv6 header and is
  // taken; the datagram completes as any other.
  Bytes request = echo6(stack_ip6, 7, 9, pattern(40));
  inject_all(fragments6(request, next_icmp6, 15, 8));
  EXPECT_EQ(sent().size(), 1u);
  // An empty fragment carries nothing.
  inject6(fragment6(16, 8, true, {}));
  EXPECT_EQ(ip6_counters().drop_fragment_bad, 1u);
  // A fragment inside a reassembled datagram.
  Bytes inner = fragment6(17, 8, true, Bytes(8, 0));
  Bytes inner_header(inner.begin() + 40, inner.end());
  inject_all(fragments6(inner_header, next_fragment, 18, 8));
  EXPECT_EQ(ip6_counters().drop_fragment_bad, 2u);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(Ip6FragmentsTest, FragmentsToAGroupTimeOutWithoutAnError) {
  Bytes request = echo6(::net::ip6addr::all_nodes(), 7, 10, pattern(3000));
  auto parts = fragments6(request, next_icmp6, 19, 1232, ::net::ip6addr::all_nodes());
  inject6(parts[0], ::net::ip6addr::multicast_mac(::net::ip6addr::all_nodes()));
  advance(60s);
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(ip6_counters().drop_fragment_timeout, 1u);
}

TEST_F(Ip6FragmentsTest, AFloodOfIncompleteDatagramsStaysWithinTheBudget) {
  auto& store = stack.parts().ip6.reassembly();
  std::size_t budget = store.limits().max_bytes;
  // 1000 datagrams from one source, then 3000 from 50 sources, each only
  // its fragment zero (one 2 KiB chunk): past one source's share (a
  // quarter), then past the whole budget (2048 chunks of 64 MiB / 16).
  for (uint32_t i = 0; i < 4000; ++i) {
    Bytes f = fragment6(1000 + i, 0, true, echo6(stack_ip6, 7, 1, pattern(1224)));
    f[8 + 15] = uint8_t(i < 1000 ? 99 : 100 + i % 50);  // the source: fd00::63 to fd00::95
    inject6(f);
    ASSERT_LE(store.bytes_held(), budget);
  }
  EXPECT_EQ(ip6_counters().drop_fragment_source_limit, 1000u - budget / 4 / 2048);
  EXPECT_GT(ip6_counters().drop_fragment_evicted, 0u);
  EXPECT_EQ(ip6_counters().rx_fragments, 4000u);
  // A real datagram still gets through.
  Bytes request = echo6(stack_ip6, 7, 11, pattern(3000));
  inject_all(fragments6(request, next_icmp6, 5555, 1232));
  auto replies = sent();
  ASSERT_FALSE(replies.empty());
  EXPECT_EQ(replies.back().upper, icmp6(stack_ip6, peer_ip6, 129, 0, 7u << 16 | 11, pattern(3000)));
}

}  // namespace
}  // namespace keel::test
