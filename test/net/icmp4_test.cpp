#include "stack_fixture.hpp"
#include "net/icmp4.hpp"
#include <algorithm>

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using Icmp4Test = StackTest;

TEST_F(Icmp4Test, EchoRepliesOfEverySizeUpToOneFrame) {
  for (std::size_t size = 0; size <= 1472; size += 7) {
    Bytes request = icmp_echo(0x4242, uint16_t(size), pattern(size));
    inject_ip(ip4(peer_ip, stack_ip, 1, request));
    ASSERT_EQ(nic.transmitted.size(), 1u) << size;
    Bytes ip = ip_of(nic.pop());
    ASSERT_EQ(ip.size(), 20 + request.size());
    EXPECT_EQ(Ip::from_bytes(&ip[16]), peer_ip);
    EXPECT_EQ(Ip::from_bytes(&ip[12]), stack_ip);
    EXPECT_EQ(keel::net::checksum(ip.data(), 20), 0);
    EXPECT_EQ(ip[20], 0);
    EXPECT_EQ(keel::net::checksum(ip.data() + 20, ip.size() - 20), 0) << size;
    EXPECT_TRUE(std::equal(ip.begin() + 24, ip.end(), request.begin() + 4));
  }
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

TEST_F(Icmp4Test, BroadcastEchoIsIgnored) {
  inject_ip(ip4(peer_ip, Ip{10, 0, 0, 255}, 1, icmp_echo(1, 1, {})));
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0800, ip4(peer_ip, Ip::broadcast(), 1, icmp_echo(1, 1, {}))));
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(counters().icmp4.rx_echo_requests, 2u);
}

TEST_F(Icmp4Test, PortUnreachableForClosedPortsIsRateLimited) {
  Bytes datagram = ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 5000, 9999, pattern(20)));
  inject_ip(datagram);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes ip = ip_of(nic.pop());
  EXPECT_EQ(ip[20], 3);
  EXPECT_EQ(ip[21], 3);
  EXPECT_EQ(keel::net::checksum(ip.data() + 20, ip.size() - 20), 0);
  // RFC 792: the original header and 8 bytes of its data.
  EXPECT_EQ(ip.size(), 20u + 8u + 28u);
  EXPECT_TRUE(std::equal(ip.begin() + 28, ip.end(), datagram.begin()));
  for (int i = 0; i < 1000; ++i) inject_ip(datagram);
  EXPECT_EQ(counters().icmp4.tx_port_unreachable, uint64_t(::keel::net::Icmp4::error_burst));
  EXPECT_EQ(counters().icmp4.drop_rate_limited, 1001u - ::keel::net::Icmp4::error_burst);
  advance(1s);
  nic.transmitted.clear();
  inject_ip(datagram);
  EXPECT_EQ(nic.transmitted.size(), 1u);
  // Never for broadcasts.
  nic.transmitted.clear();
  inject_ip(ip4(peer_ip, Ip{10, 0, 0, 255}, 17, udp(peer_ip, Ip{10, 0, 0, 255}, 5000, 9999, {})));
  EXPECT_TRUE(nic.transmitted.empty());
}

}  // namespace
}  // namespace keel::test
