// Path MTU discovery for what this host sends over IPv6 other than TCP
// (RFC 8201): a Packet Too Big about a UDP datagram or an echo reply of
// ours lowers the path MTU to its destination (never below 1280, never
// raised by a report, forgotten after 10 minutes, RFC 8201 §5.3), and what
// follows to that destination leaves in fragments that fit (RFC 8200
// §4.5). Forged and garbled reports are counted and change nothing.
#include <gtest/gtest.h>

#include "ip6_fixture.hpp"
#include "net/stack_parts.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

constexpr uint8_t next_fragment = 44, next_icmp6 = 58, next_udp = 17;
const Ip6 router_ip6 = ip6_of("fd00::fe");  // the router whose next link is narrower

class Pmtu6Test : public Ip6StackTest {
 protected:
  // The IPv6 packets the stack sent that carry UDP, ICMPv6 echo replies or
  // fragments (ND and MLD left out), each after its Ethernet header.
  std::vector<Bytes> sent() {
    std::vector<Bytes> out;
    while (!nic.transmitted.empty()) {
      Bytes f = nic.pop();
      if (ethertype(f) != ::net::wire::ethertype_ip6) continue;
      auto h = sent_ip6(f);
      bool echo = h.next_header == next_icmp6 && f[14 + 40] == 129;
      if (h.next_header == next_udp || h.next_header == next_fragment || echo)
        out.push_back(ip_of(f));
    }
    return out;
  }
  // A Packet Too Big from the router about `offending` (an IPv6 packet),
  // quoting as much as fits in 1280 bytes (RFC 4443 §3.2).
  void inject_too_big(const Bytes& offending, uint32_t mtu, const Ip6& from = router_ip6) {
    Bytes quote(offending.begin(),
                offending.begin() + long(std::min<std::size_t>(offending.size(), 1232)));
    inject6(ip6(from, stack_ip6, next_icmp6, icmp6(from, stack_ip6, 2, 0, mtu, quote)));
  }
  // Sends `n` bytes to peer_ip6:9 and returns the packets that left.
  std::vector<Bytes> send_udp(std::size_t n, const Ip6& to = peer_ip6) {
    // The peer solicits us first: its neighbour entry is there however long the test waited.
    inject6(ns(peer_ip6, ::net::ip6addr::solicited_node(stack_ip6), stack_ip6, &peer_mac),
            ::net::ip6addr::multicast_mac(::net::ip6addr::solicited_node(stack_ip6)));
    if (!socket.is_open()) socket = *stack.udp().bind(5000);
    std::string data(n, 'u');
    EXPECT_EQ(socket.send_to({to, 9}, data.data(), data.size()), ::net::Status::ok);
    return sent();
  }
  // Each packet at most `mtu` bytes; fragments when more than one.
  static void expect_fit(const std::vector<Bytes>& packets, std::size_t mtu, std::size_t count) {
    ASSERT_EQ(packets.size(), count);
    for (const Bytes& p : packets) {
      EXPECT_LE(p.size(), mtu);
      if (count > 1) EXPECT_EQ(p[6], next_fragment);
    }
  }
  const ::net::Ip6Counters& ip6c() const { return ip6_counters(); }

  ::net::UdpSocket socket;
};

TEST_F(Pmtu6Test, PacketTooBigAboutADatagramFragmentsTheNextOnesToFit) {
  auto first = send_udp(1400);  // 1448 bytes: fits the link's 1500
  ASSERT_NO_FATAL_FAILURE(expect_fit(first, 1500, 1));
  inject_too_big(first[0], 1300);
  EXPECT_EQ(icmp6_counters().rx_packet_too_big, 1u);
  EXPECT_EQ(ip6c().pmtu_updates, 1u);
  auto again = send_udp(1400);
  ASSERT_NO_FATAL_FAILURE(expect_fit(again, 1300, 2));
  // The first fragment fills the path MTU: 40 + 8 + a multiple of 8.
  EXPECT_EQ(again[0].size(), 40u + 8 + (1300 - 48) / 8 * 8);
  // Another destination keeps the link's MTU.
  EXPECT_EQ(stack.parts().ip6.path_mtu(0, ip6_of("fd00::7")), 1500u);
  EXPECT_EQ(stack.parts().ip6.path_mtu(0, peer_ip6), 1300u);
}

TEST_F(Pmtu6Test, PacketTooBigAboutAnEchoReplyFragmentsTheNextReplies) {
  inject6(ip6(peer_ip6, stack_ip6, next_icmp6, echo6(stack_ip6, 7, 1, pattern(1400))));
  auto reply = sent();
  ASSERT_NO_FATAL_FAILURE(expect_fit(reply, 1500, 1));
  inject_too_big(reply[0], 1280);
  inject6(ip6(peer_ip6, stack_ip6, next_icmp6, echo6(stack_ip6, 7, 2, pattern(1400))));
  ASSERT_NO_FATAL_FAILURE(expect_fit(sent(), 1280, 2));
}

TEST_F(Pmtu6Test, NeverBelow1280NorRaisedByAReport) {  // RFC 8201 §4
  auto first = send_udp(1400);
  inject_too_big(first[0], 600);  // below IPv6's minimum: 1280
  ASSERT_NO_FATAL_FAILURE(expect_fit(send_udp(1400), 1280, 2));
  inject_too_big(first[0], 1400);  // higher than the estimate: ignored
  EXPECT_EQ(ip6c().pmtu_updates, 1u);
  ASSERT_NO_FATAL_FAILURE(expect_fit(send_udp(1400), 1280, 2));
}

TEST_F(Pmtu6Test, TheEstimateIsForgottenAfterTenMinutes) {  // RFC 8201 §5.3
  auto first = send_udp(1400);
  inject_too_big(first[0], 1300);
  advance(590s);
  ASSERT_NO_FATAL_FAILURE(expect_fit(send_udp(1400), 1300, 2));
  advance(11s);
  ASSERT_NO_FATAL_FAILURE(expect_fit(send_udp(1400), 1500, 1));
}

TEST_F(Pmtu6Test, ForgedAndGarbledReportsAreCountedAndChangeNothing) {
  Bytes ours =
      ip6(stack_ip6, peer_ip6, next_udp, udp6(stack_ip6, peer_ip6, 5000, 9, pattern(1400)));
  // Not from one of our addresses (RFC 5927 §4.1).
  Bytes theirs =
      ip6(peer_ip6, stack_ip6, next_udp, udp6(peer_ip6, stack_ip6, 9, 5000, pattern(1400)));
  inject_too_big(theirs, 1300);
  // Truncated: the IPv6 header but not the UDP header.
  inject_too_big(Bytes(ours.begin(), ours.begin() + 44), 1300);
  // A packet that fitted the MTU reported: it cannot have been too big.
  inject_too_big(
      ip6(stack_ip6, peer_ip6, next_udp, udp6(stack_ip6, peer_ip6, 5000, 9, pattern(100))), 1300);
  // Not an echo reply: we send no other ICMPv6 this big.
  inject_too_big(
      ip6(stack_ip6, peer_ip6, next_icmp6, icmp6(stack_ip6, peer_ip6, 128, 0, 0, pattern(1400))),
      1300);
  EXPECT_EQ(icmp6_counters().drop_bad_packet_too_big, 4u);
  // A bad checksum never gets that far.
  Bytes bad = icmp6(router_ip6, stack_ip6, 2, 0, 1300, Bytes(ours.begin(), ours.begin() + 1232));
  bad[2] ^= 1;
  inject6(ip6(router_ip6, stack_ip6, next_icmp6, bad));
  EXPECT_EQ(icmp6_counters().drop_bad_checksum, 1u);
  EXPECT_EQ(icmp6_counters().rx_packet_too_big, 4u);
  EXPECT_EQ(ip6c().pmtu_updates, 0u);
  ASSERT_NO_FATAL_FAILURE(expect_fit(send_udp(1400), 1500, 1));
}

TEST_F(Pmtu6Test, AFloodOfReportsStaysWithinTheCache) {
  for (int i = 0; i < 200; ++i) {
    Ip6 dst = ip6_of("2001:db8::");
    dst.bytes[14] = uint8_t(i >> 8);
    dst.bytes[15] = uint8_t(i);
    inject_too_big(ip6(stack_ip6, dst, next_udp, udp6(stack_ip6, dst, 5000, 9, pattern(1400))),
                   1300);
  }
  auto& destinations = stack.parts().ip6.destinations();
  EXPECT_EQ(destinations.size(), ::net::Destinations::max_entries);
  EXPECT_EQ(ip6c().pmtu_updates, 200u);
  EXPECT_EQ(ip6c().destination_evictions, 200u - ::net::Destinations::max_entries);
  // The stack still answers, at its link's MTU to the peer.
  ASSERT_NO_FATAL_FAILURE(expect_fit(send_udp(1400), 1500, 1));
}

}  // namespace
}  // namespace keel::test
