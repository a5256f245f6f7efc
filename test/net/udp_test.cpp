// UDP (RFC 768) through the whole stack: delivery to a socket, replies,
// malformed datagrams, checksum offload, large datagrams between two
// stacks, and a datagram that outlives the call that sent it.
#include <string>

#include "stack_fixture.hpp"

namespace keel::test {
namespace {

using ::net::Endpoint;
using ::net::Status;
using ::net::UdpDatagram;
using ::net::wire::Ip4Repr;
using ::net::wire::UdpRepr;

using UdpTest = StackTest;

struct Received {
  Endpoint source, destination;
  ::net::InterfaceId interface;
  std::string data;
  friend bool operator==(const Received&, const Received&) = default;
};

Received copy_of(const UdpDatagram& d) {
  return {d.source, d.destination, d.interface, std::string(d.data(), d.size())};
}

TEST_F(UdpTest, BindDeliversAndSendToAnswers) {
  std::vector<Received> got;
  auto socket = *stack.udp().bind(7);
  socket.on_read([&, socket](const UdpDatagram& d) mutable {
    got.push_back(copy_of(d));
    EXPECT_EQ(socket.send_to(d.source, d.payload), Status::ok);
  });
  inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {'h', 'i'})));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (Received{{peer_ip, 4000}, {stack_ip, 7}, 0, "hi"}));
  ASSERT_EQ(nic.transmitted.size(), 1u);
  Bytes f = nic.pop();
  EXPECT_EQ(
      sent_ip(f),
      (Ip4Repr{.src = stack_ip, .dst = peer_ip, .protocol = 17, .id = 1, .payload_len = 8 + 2}));
  EXPECT_EQ(sent_udp(f), (UdpRepr{7, 4000, 2}));  // sent_udp checks the checksum too
  EXPECT_EQ(sent_payload(f).back(), 'i');
  EXPECT_EQ(counters().udp.rx, 1u);
  EXPECT_EQ(counters().udp.tx, 1u);
}

TEST_F(UdpTest, MalformedDatagramsAreCounted) {
  int calls = 0;
  auto socket = *stack.udp().bind(7);
  socket.on_read([&](const UdpDatagram&) { ++calls; });
  Bytes good = udp(peer_ip, stack_ip, 4000, 7, pattern(30));
  Bytes sum = good;
  sum[12] ^= 1;
  inject_ip(ip4(peer_ip, stack_ip, 17, sum));
  Bytes len_big = good;
  ::net::wire::store16(&len_big[4], 200);
  inject_ip(ip4(peer_ip, stack_ip, 17, len_big));
  Bytes len_small = good;
  ::net::wire::store16(&len_small[4], 4);
  inject_ip(ip4(peer_ip, stack_ip, 17, len_small));
  inject_ip(ip4(peer_ip, stack_ip, 17, Bytes(good.begin(), good.begin() + 7)));
  EXPECT_EQ(counters().udp.drop_bad_checksum, 1u);
  EXPECT_EQ(counters().udp.drop_bad_length, 2u);
  EXPECT_EQ(counters().udp.drop_truncated, 1u);
  EXPECT_EQ(calls, 0);
  Bytes no_sum = good;
  ::net::wire::store16(&no_sum[6], 0);  // RFC 768: not computed
  inject_ip(ip4(peer_ip, stack_ip, 17, no_sum));
  EXPECT_EQ(calls, 1);
}

// A UDP length shorter than the IP payload: the rest is not the datagram's.
TEST_F(UdpTest, TrailingBytesPastTheUdpLengthAreNotDelivered) {
  std::string got;
  auto socket = *stack.udp().bind(7);
  socket.on_read([&](const UdpDatagram& d) { got.assign(d.data(), d.size()); });
  Bytes d = udp(peer_ip, stack_ip, 4000, 7, {'o', 'k'});
  d.insert(d.end(), {'x', 'y', 'z'});
  inject_ip(ip4(peer_ip, stack_ip, 17, d));
  EXPECT_EQ(got, "ok");
}

TEST_F(UdpTest, SendToChecksItsArguments) {
  auto socket = *stack.udp().bind(0);
  EXPECT_EQ(socket.send_to({peer_ip, 0}, "a", 1), Status::invalid);
  EXPECT_EQ(socket.send_to({Ip{}, 53}, "a", 1), Status::invalid);
  std::string big(::net::Udp::max_payload + 1, 'x');
  EXPECT_EQ(socket.send_to({peer_ip, 1}, big.data(), big.size()), Status::too_big);
  ::net::ip6::Addr v6;
  v6.bytes[15] = 1;
  EXPECT_EQ(socket.send_to({v6, 53}, "a", 1), Status::no_route);  // no IPv6 address yet
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(socket.send_to({peer_ip, 53}, "", 0), Status::ok);  // empty datagrams are fine
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_udp(nic.pop()), (UdpRepr{socket.local().port, 53, 0}));
}

TEST_F(UdpTest, ChecksumOffloadLeavesPartialSum) {
  ManualClock offload_clock;
  ::net::MemoryNic offload_nic(stack_mac);
  offload_nic.set_offloads({.tx_checksum = true, .rx_checksum = true});
  ::net::Stack offloaded(offload_clock, test_stack_config());
  ::net::Interface& i = offloaded.add_interface(offload_nic);
  i.configure(stack_ip, ::net::ip4::netmask_of(24));
  offload_nic.inject(
      ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
  offload_nic.transmitted.clear();
  auto socket = *offloaded.udp().bind(7);
  // (the packet object is gone once transmitted; the partial sum is visible)
  ASSERT_EQ(socket.send_to({peer_ip, 7}, "abc", 3), Status::ok);
  ASSERT_EQ(offload_nic.transmitted.size(), 1u);
  Bytes ip = ip_of(offload_nic.pop());
  uint16_t partial =
      ::net::wire::checksum_fold(::net::wire::pseudo_header_sum(stack_ip, peer_ip, 17, 11));
  EXPECT_EQ(::net::wire::load16(&ip[26]), partial);
  // Relative to the Ethernet header, as the driver sees it.
  EXPECT_TRUE(offload_nic.last_flags & ::net::Packet::checksum_partial);
  EXPECT_EQ(offload_nic.last_csum_start, 14 + 20);
  EXPECT_EQ(offload_nic.last_csum_offset, 6);
  // Bigger than the MTU but within one buffer: completed in software, then fragmented.
  std::string data(1800, 'z');
  ASSERT_EQ(socket.send_to({peer_ip, 7}, data.data(), data.size()), Status::ok);
  ASSERT_EQ(offload_nic.transmitted.size(), 2u);
  EXPECT_FALSE(offload_nic.last_flags & ::net::Packet::checksum_partial);
  Bytes first = offload_nic.pop(), second = offload_nic.pop();
  Bytes whole = sent_payload(first), rest = sent_payload(second);
  whole.insert(whole.end(), rest.begin(), rest.end());
  ::net::wire::UdpView<const uint8_t> v(whole.data(), whole.size());
  EXPECT_EQ(v.check(stack_ip, peer_ip), ::net::wire::UdpError::none);
  EXPECT_EQ(UdpRepr::parse(v), (UdpRepr{7, 7, 1800}));
}

// Two stacks back to back: large datagrams go out in fragments and come
// back whole.
TEST(UdpLink, LargeDatagramsBetweenTwoStacks) {
  ManualClock a_clock, b_clock;
  ::net::MemoryNic a_nic(stack_mac), b_nic(peer_mac);
  ::net::Stack a(a_clock, test_stack_config()), b(b_clock, test_stack_config());
  a_nic.set_after_receive(
      [&a_clock] { a_clock.advance(std::chrono::nanoseconds(0)); });  // the loop step
  b_nic.set_after_receive([&b_clock] { b_clock.advance(std::chrono::nanoseconds(0)); });
  a.add_interface(a_nic).configure(stack_ip, ::net::ip4::netmask_of(24));
  b.add_interface(b_nic).configure(peer_ip, ::net::ip4::netmask_of(24));
  ::net::MemoryNic::pump(a_nic, b_nic);
  std::vector<std::size_t> sizes;
  auto echo = *b.udp().bind(7);
  echo.on_read([&, echo](const UdpDatagram& d) mutable {
    sizes.push_back(d.size());
    echo.send_to(d.source, d.payload);
  });
  std::vector<std::string> echoed;
  auto client = *a.udp().bind(5000);
  client.on_read([&](const UdpDatagram& d) { echoed.emplace_back(d.data(), d.size()); });
  std::string big(::net::Udp::max_payload, 'x');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = char('a' + i % 23);
  for (std::size_t n : {std::size_t(1), std::size_t(1472), std::size_t(1473), std::size_t(8000),
                        std::size_t(::net::Udp::max_payload)}) {
    ASSERT_EQ(client.send_to({peer_ip, 7}, big.data(), n), Status::ok) << n;
    ::net::MemoryNic::pump(a_nic, b_nic);
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 1472, 1473, 8000, ::net::Udp::max_payload}));
  ASSERT_EQ(echoed.size(), 5u);
  EXPECT_EQ(echoed[4], big);
  EXPECT_EQ(a.counters().total_drops(), 0u);
  EXPECT_EQ(b.counters().total_drops(), 0u);
  EXPECT_EQ(a_nic.pool().available(), a_nic.pool().count());
  EXPECT_EQ(b_nic.pool().available(), b_nic.pool().count());
}

[[gnu::noinline]] void scribble_on_the_stack() {
  volatile char junk[16 * 1024];
  for (auto& c : junk) c = char(0xa5);
}

// A datagram larger than a pool buffer is built in a buffer of its own.
// With a jumbo MTU it fits one frame, and while the next hop is unresolved
// it waits in the ARP queue after send_to returned: it must still be whole.
TEST(UdpJumbo, DatagramQueuedForArpOutlivesSendTo) {
  ManualClock clock;
  ::net::MemoryNic nic(stack_mac, 9000);
  ::net::Stack stack(clock, test_stack_config());
  stack.add_interface(nic).configure(stack_ip, ::net::ip4::netmask_of(24), Ip{10, 0, 0, 254});
  nic.transmitted.clear();
  Bytes data = pattern(3000, 7);
  {
    auto socket = *stack.udp().bind(7);
    std::vector<uint8_t> payload = data;  // the caller's buffer, gone after the call
    ASSERT_EQ(socket.send_to({peer_ip, 9}, payload), Status::ok);
    std::fill(payload.begin(), payload.end(), 0);
  }
  scribble_on_the_stack();
  ASSERT_EQ(nic.transmitted.size(), 1u);  // the ARP request
  nic.transmitted.clear();
  nic.inject(ethernet(stack_mac, peer_mac, 0x0806, arp(2, peer_mac, peer_ip, stack_mac, stack_ip)));
  ASSERT_EQ(nic.transmitted.size(), 1u);  // one frame: the MTU is 9000
  Bytes f = nic.pop();
  EXPECT_EQ(sent_udp(f), (UdpRepr{7, 9, 3000}));
  Bytes sent = sent_payload(f);
  EXPECT_EQ(Bytes(sent.begin() + 8, sent.end()), data);
}

}  // namespace
}  // namespace keel::test
