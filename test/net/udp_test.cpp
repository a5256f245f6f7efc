#include "stack_fixture.hpp"

#include <string>

namespace keel::test {
namespace {

using UdpTest = StackTest;

struct Received {
  Ip src;
  uint16_t sport = 0;
  std::string data;
};

TEST_F(UdpTest, BindDeliversAndSendtoAnswers) {
  std::vector<Received> got;
  stack.udp().bind(7).on_read([&](Ip src, uint16_t sport, const char* data, std::size_t len) {
    got.push_back({src, sport, std::string(data, len)});
    stack.udp().sendto(src, sport, data, len, 7);
  });
  inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {'h', 'i'})));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].src, peer_ip);
  EXPECT_EQ(got[0].sport, 4000);
  EXPECT_EQ(got[0].data, "hi");
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes ip = ip_of(nic.pop());
  EXPECT_EQ(keel::net::load16(&ip[20]), 7);
  EXPECT_EQ(keel::net::load16(&ip[22]), 4000);
  uint32_t pseudo = keel::net::pseudo_header_sum(stack_ip, peer_ip, 17, uint16_t(ip.size() - 20));
  EXPECT_EQ(keel::net::checksum_fold(keel::net::checksum_add(pseudo, &ip[20], ip.size() - 20)), 0xffff);
}

TEST_F(UdpTest, MalformedDatagramsAreCounted) {
  int calls = 0;
  stack.udp().bind(7).on_read([&](Ip, uint16_t, const char*, std::size_t) { ++calls; });
  Bytes good = udp(peer_ip, stack_ip, 4000, 7, pattern(30));
  Bytes sum = good;
  sum[12] ^= 1;
  inject_ip(ip4(peer_ip, stack_ip, 17, sum));
  Bytes len_big = good;
  keel::net::store16(&len_big[4], 200);
  inject_ip(ip4(peer_ip, stack_ip, 17, len_big));
  Bytes len_small = good;
  keel::net::store16(&len_small[4], 4);
  inject_ip(ip4(peer_ip, stack_ip, 17, len_small));
  inject_ip(ip4(peer_ip, stack_ip, 17, Bytes(good.begin(), good.begin() + 7)));
  EXPECT_EQ(counters().udp.drop_bad_checksum, 1u);
  EXPECT_EQ(counters().udp.drop_bad_length, 2u);
  EXPECT_EQ(counters().udp.drop_truncated, 1u);
  EXPECT_EQ(calls, 0);
  Bytes no_sum = good;
  keel::net::store16(&no_sum[6], 0);  // RFC 768: not computed
  inject_ip(ip4(peer_ip, stack_ip, 17, no_sum));
  EXPECT_EQ(calls, 1);
}

TEST_F(UdpTest, EphemeralPortsForUnboundSends) {
  stack.udp().sendto(peer_ip, 53, "a", 1);
  stack.udp().sendto(peer_ip, 53, "b", 1);
  ASSERT_EQ(nic.transmitted.size(), 2u);
  uint16_t p1 = keel::net::load16(&nic.transmitted[0][14 + 20]);
  uint16_t p2 = keel::net::load16(&nic.transmitted[1][14 + 20]);
  EXPECT_GE(p1, ::net::Udp::ephemeral_first);
  EXPECT_NE(p1, p2);
  auto& s = stack.udp().bind();
  EXPECT_GE(s.port(), ::net::Udp::ephemeral_first);
  EXPECT_EQ(stack.udp().sendto(peer_ip, 0, "a", 1), ::net::Status::invalid);
  EXPECT_EQ(stack.udp().sendto(peer_ip, 1, "a", ::net::Udp::max_payload + 1), ::net::Status::too_big);
}

TEST_F(UdpTest, HandlerMayCloseItsSocket) {
  int calls = 0;
  auto& socket = stack.udp().bind(9);
  socket.on_read([&](Ip, uint16_t, const char*, std::size_t) {
    ++calls;
    socket.close();
  });
  inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 1, 9, {1})));
  inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 1, 9, {1})));
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(stack.udp().is_bound(9));
}

TEST_F(UdpTest, ChecksumOffloadLeavesPartialSum) {
  nic.set_offloads({.tx_checksum = true, .rx_checksum = true});
  ::net::Inet offloaded(nic);
  offloaded.configure(stack_ip, ::net::ip4::netmask_of(24));
  nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
  nic.transmitted.clear();
  // (the packet object is gone once transmitted; the partial sum is visible)
  offloaded.udp().sendto(peer_ip, 7, "abc", 3, 7);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes ip = ip_of(nic.pop());
  uint16_t partial = keel::net::checksum_fold(keel::net::pseudo_header_sum(stack_ip, peer_ip, 17, 11));
  EXPECT_EQ(keel::net::load16(&ip[26]), partial);
  // Relative to the Ethernet header, as the driver sees it.
  EXPECT_TRUE(nic.last_flags & ::net::Packet::checksum_partial);
  EXPECT_EQ(nic.last_csum_start, 14 + 20);
  EXPECT_EQ(nic.last_csum_offset, 6);
  // Bigger than the MTU but within one buffer: completed in software, then fragmented.
  std::string data(1800, 'z');
  ASSERT_EQ(offloaded.udp().sendto(peer_ip, 7, data.data(), data.size(), 7), ::net::Status::ok);
  ASSERT_EQ(nic.transmitted.size(), 2u);
  Bytes first = ip_of(nic.pop()), second = ip_of(nic.pop());
  Bytes whole(first.begin() + 20, first.end());
  whole.insert(whole.end(), second.begin() + 20, second.end());
  uint32_t pseudo = keel::net::pseudo_header_sum(stack_ip, peer_ip, 17, uint16_t(whole.size()));
  EXPECT_EQ(keel::net::checksum_fold(keel::net::checksum_add(pseudo, whole.data(), whole.size())), 0xffff);
}

// Two stacks back to back: large datagrams go out in fragments and come
// back whole.
TEST(UdpLink, LargeDatagramsBetweenTwoStacks) {
  reset_os();
  ::net::MemoryNic a_nic(stack_mac), b_nic(peer_mac);
  ::net::Inet a(a_nic), b(b_nic);
  a.configure(stack_ip, ::net::ip4::netmask_of(24));
  b.configure(peer_ip, ::net::ip4::netmask_of(24));
  ::net::MemoryNic::pump(a_nic, b_nic);
  std::vector<std::size_t> sizes;
  b.udp().bind(7).on_read([&](Ip src, uint16_t sport, const char* data, std::size_t len) {
    sizes.push_back(len);
    b.udp().sendto(src, sport, data, len, 7);
  });
  std::vector<std::string> echoed;
  a.udp().bind(5000).on_read([&](Ip, uint16_t, const char* data, std::size_t len) {
    echoed.emplace_back(data, len);
  });
  std::string big(::net::Udp::max_payload, 'x');
  for (std::size_t n : {std::size_t(1), std::size_t(1472), std::size_t(1473), std::size_t(8000),
                        std::size_t(::net::Udp::max_payload)}) {
    ASSERT_EQ(a.udp().sendto(peer_ip, 7, big.data(), n, 5000), ::net::Status::ok) << n;
    ::net::MemoryNic::pump(a_nic, b_nic);
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 1472, 1473, 8000, ::net::Udp::max_payload}));
  ASSERT_EQ(echoed.size(), 5u);
  EXPECT_EQ(echoed[4], big);
  EXPECT_EQ(a.counters().total_drops(), 0u);
  EXPECT_EQ(b.counters().total_drops(), 0u);
  reset_os();
}

}  // namespace
}  // namespace keel::test

namespace keel::test {
namespace {

[[gnu::noinline]] void scribble_on_the_stack() {
  volatile char junk[16 * 1024];
  for (auto& c : junk) c = char(0xa5);
}

// A datagram larger than a pool buffer is built on sendto's stack. With a
// jumbo MTU it fits one frame, and while the next hop is unresolved it waits
// in the ARP queue after sendto returned: it must wait as a copy.
TEST(UdpJumbo, DatagramQueuedForArpOutlivesSendto) {
  reset_os();
  ::net::MemoryNic nic(stack_mac, 9000);
  ::net::Inet stack(nic);
  stack.configure(stack_ip, ::net::ip4::netmask_of(24), Ip{10, 0, 0, 254});
  nic.transmitted.clear();
  Bytes data = pattern(3000, 7);
  stack.udp().sendto(peer_ip, 9, reinterpret_cast<const char*>(data.data()), data.size(), 7);
  scribble_on_the_stack();
  ASSERT_EQ(nic.transmitted.size(), 1u);  // the ARP request
  nic.transmitted.clear();
  nic.inject(ethernet(stack_mac, peer_mac, 0x0806, arp(2, peer_mac, peer_ip, stack_mac, stack_ip)));
  ASSERT_FALSE(nic.transmitted.empty());
  Bytes sent;
  for (const Bytes& f : nic.transmitted) {
    Bytes ip(f.begin() + 14, f.end());
    std::size_t skip = (keel::net::load16(&ip[6]) & 0x1fff) == 0 ? 28 : 20;
    sent.insert(sent.end(), ip.begin() + skip, ip.end());
  }
  EXPECT_EQ(sent, data);
  reset_os();
}

}  // namespace
}  // namespace keel::test
