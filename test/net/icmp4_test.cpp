// ICMPv4 (RFC 792, RFC 1122 §3.2.2): echo replies and the errors a host
// sends, with their rate limit.
#include "net/ip4/icmp4.hpp"

#include <algorithm>

#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Icmp4;
using ::net::wire::EthernetRepr;
using ::net::wire::Icmp4Repr;
using ::net::wire::Ip4Repr;
namespace icmp = ::net::wire::icmp4;

using Icmp4Test = StackTest;

TEST_F(Icmp4Test, EchoRepliesOfEverySizeUpToOneFrame) {
  uint16_t id = 1;  // the stack numbers its datagrams from 1
  for (std::size_t size = 0; size <= 1472; size += 7, ++id) {
    Bytes request = icmp_echo(0x4242, uint16_t(size), pattern(size));
    inject_ip(ip4(peer_ip, stack_ip, 1, request));
    ASSERT_EQ(nic.transmitted.size(), 1u) << size;
    Bytes f = nic.pop();
    EXPECT_EQ(sent_ethernet(f), (EthernetRepr{peer_mac, stack_mac, ::net::wire::ethertype_ip4}));
    EXPECT_EQ(sent_ip(f), (Ip4Repr{.src = stack_ip,
                                   .dst = peer_ip,
                                   .protocol = 1,
                                   .id = id,
                                   .payload_len = uint16_t(request.size())}))
        << size;
    EXPECT_EQ(sent_icmp(f), Icmp4Repr::echo(icmp::echo_reply, 0x4242, uint16_t(size)));
    Bytes reply = sent_payload(f);
    EXPECT_TRUE(std::equal(reply.begin() + 8, reply.end(), request.begin() + 8, request.end()));
  }
  EXPECT_EQ(counters().icmp4.tx_echo_replies, counters().icmp4.rx_echo_requests);
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
}

TEST_F(Icmp4Test, BadAndShortMessagesAreCounted) {
  Bytes bad = icmp_echo(1, 1, pattern(10));
  bad[9] ^= 1;
  inject_ip(ip4(peer_ip, stack_ip, 1, bad));
  inject_ip(ip4(peer_ip, stack_ip, 1, Bytes(7)));
  inject_ip(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, {}, 13)));  // timestamp: ignored
  EXPECT_EQ(counters().icmp4.drop_bad_checksum, 1u);
  EXPECT_EQ(counters().icmp4.drop_truncated, 1u);
  EXPECT_EQ(counters().icmp4.rx_ignored, 1u);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(Icmp4Test, NicVerifiedChecksumsAreTrusted) {
  Bytes bad = icmp_echo(1, 1, pattern(10));
  bad[9] ^= 1;
  Bytes f = ip_frame(ip4(peer_ip, stack_ip, 1, bad));
  nic.inject(f.data(), f.size(), ::net::Packet::checksum_verified);
  EXPECT_EQ(nic.transmitted.size(), 1u);
}

TEST_F(Icmp4Test, BroadcastEchoIsIgnored) {  // RFC 1122 §3.2.2.6
  inject_ip(ip4(peer_ip, Ip{10, 0, 0, 255}, 1, icmp_echo(1, 1, {})));
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0800,
                      ip4(peer_ip, Ip::broadcast(), 1, icmp_echo(1, 1, {}))));
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(counters().icmp4.rx_echo_requests, 2u);
}

TEST_F(Icmp4Test, PortUnreachableForClosedPortsIsRateLimited) {
  Bytes datagram = ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 5000, 9999, pattern(20)));
  inject_ip(datagram);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  // RFC 1812 §4.3.2.3: as much of the original as fits in 576 bytes.
  EXPECT_EQ(sent_ip(f), (Ip4Repr{.src = stack_ip,
                                 .dst = peer_ip,
                                 .protocol = 1,
                                 .id = 1,
                                 .payload_len = uint16_t(8 + datagram.size())}));
  EXPECT_EQ(sent_icmp(f), (Icmp4Repr{icmp::unreachable, icmp::port_unreachable, 0}));
  Bytes quoted = sent_payload(f);
  EXPECT_TRUE(std::equal(quoted.begin() + 8, quoted.end(), datagram.begin(), datagram.end()));
  Bytes large = ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 5000, 9999, pattern(1000)));
  inject_ip(large);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(nic.pop().size(), 14 + Icmp4::error_datagram_max);
  for (int i = 0; i < 1000; ++i) inject_ip(datagram);
  EXPECT_EQ(counters().icmp4.tx_port_unreachable, uint64_t(Icmp4::error_burst));
  EXPECT_EQ(counters().icmp4.drop_rate_limited, 1002u - Icmp4::error_burst);
  advance(1s);  // the bucket refills
  nic.transmitted.clear();
  inject_ip(datagram);
  EXPECT_EQ(nic.transmitted.size(), 1u);
  // Never for broadcasts.
  nic.transmitted.clear();
  inject_ip(ip4(peer_ip, Ip{10, 0, 0, 255}, 17, udp(peer_ip, Ip{10, 0, 0, 255}, 5000, 9999, {})));
  EXPECT_TRUE(nic.transmitted.empty());
}

// RFC 1122 §3.2.2: never an error about an ICMP error (a storm of
// unreachables between two hosts), but about an echo request, yes.
TEST_F(Icmp4Test, NoErrorAboutAnError) {
  Bytes inner = ip4(stack_ip, peer_ip, 17, udp(stack_ip, peer_ip, 1, 2, {1, 2, 3, 4}));  // 8n bytes
  Bytes error(8);
  error[0] = icmp::unreachable;
  error[1] = icmp::port_unreachable;
  error.insert(error.end(), inner.begin(), inner.end());
  ::net::wire::store16(&error[2], ::net::wire::checksum(error.data(), error.size()));
  // As a fragment zero that never completes: its timeout would be an error.
  inject_ip(ip4(peer_ip, stack_ip, 1, error, {.id = 7, .fragment = 0x2000}));
  inject_ip(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, pattern(16)), {.id = 8, .fragment = 0x2000}));
  advance(16s);
  EXPECT_EQ(counters().ip4.drop_fragment_timeout, 2u);
  ASSERT_EQ(nic.transmitted.size(), 1u);  // only about the echo request
  Bytes f = nic.pop();
  EXPECT_EQ(sent_icmp(f), (Icmp4Repr{icmp::time_exceeded, icmp::reassembly_time_exceeded, 0}));
  EXPECT_EQ(::net::wire::load16(&sent_payload(f)[8 + 4]), 8);  // the quoted header's id
}

}  // namespace
}  // namespace keel::test
