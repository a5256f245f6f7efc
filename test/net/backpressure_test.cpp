// Transmit back-pressure (api/net/nic.hpp): when the NIC's ring is full,
// frames wait in the interface's queue in order; senders hear would_block
// above the queue's high mark and on_writable once it drains below the low
// one; nothing is lost below the queue's capacity, and what is past it is
// dropped and counted.
#include <functional>
#include <string>

#include "net/link/link.hpp"
#include "stack_fixture.hpp"

namespace keel::test {
namespace {

using ::net::Link;
using ::net::Status;

class BackpressureTest : public StackTest {
 protected:
  void SetUp() override {
    StackTest::SetUp();
    socket = *stack.udp().bind(5000);
  }
  Status send_numbered(uint32_t n) {
    uint8_t b[4];
    ::net::wire::store32(b, n);
    return socket.send_to({peer_ip, 9}, b, sizeof b);
  }
  // The numbers the frames sent so far carry, in order.
  std::vector<uint32_t> sent_numbers() {
    std::vector<uint32_t> numbers;
    for (const Bytes& f : nic.transmitted)
      numbers.push_back(::net::wire::load32(&sent_payload(f)[8]));
    return numbers;
  }
  static std::vector<uint32_t> count(uint32_t from, uint32_t to) {
    std::vector<uint32_t> v;
    for (uint32_t i = from; i < to; ++i) v.push_back(i);
    return v;
  }
  ::net::UdpSocket socket;
};

TEST_F(BackpressureTest, FramesWaitInTheInterfaceAndLeaveInOrder) {
  nic.limit_transmit_room(2);
  for (uint32_t i = 0; i < 10; ++i) ASSERT_EQ(send_numbered(i), Status::ok);
  EXPECT_EQ(nic.transmitted.size(), 2u);
  EXPECT_EQ(iface.transmit_backlog(), 8u);
  EXPECT_EQ(link_counters().link.tx_queued, 8u);
  nic.free_transmit_room(3);
  EXPECT_EQ(iface.transmit_backlog(), 5u);
  nic.free_transmit_room(100);
  EXPECT_EQ(iface.transmit_backlog(), 0u);
  EXPECT_EQ(sent_numbers(), count(0, 10));
  // With room to spare, new frames go straight to the NIC again.
  ASSERT_EQ(send_numbered(10), Status::ok);
  EXPECT_EQ(nic.transmitted.size(), 11u);
  EXPECT_EQ(link_counters().link.tx_queued, 8u);
  EXPECT_EQ(nic.stats().tx_dropped, 0u);
}

TEST_F(BackpressureTest, WouldBlockAboveTheHighMarkThenWritableOnce) {
  nic.limit_transmit_room(0);
  int writable = 0;
  EXPECT_EQ(socket.on_writable([&] { ++writable; }), Status::ok);
  uint32_t sent = 0;
  while (send_numbered(sent) == Status::ok) {
    ++sent;
    ASSERT_LE(sent, Link::queue_frames);
  }
  EXPECT_EQ(sent, Link::queue_high);
  EXPECT_EQ(iface.transmit_backlog(), Link::queue_high);
  EXPECT_EQ(send_numbered(sent), Status::would_block);  // and again
  EXPECT_EQ(writable, 0);
  // Draining to just above the low mark is not enough...
  nic.free_transmit_room(Link::queue_high - Link::queue_low - 1);
  EXPECT_EQ(writable, 0);
  EXPECT_EQ(send_numbered(sent), Status::would_block);
  // ...to the low mark is.
  nic.free_transmit_room(1);
  EXPECT_EQ(writable, 1);
  EXPECT_EQ(iface.transmit_backlog(), Link::queue_low);
  nic.free_transmit_room(Link::queue_frames);
  EXPECT_EQ(writable, 1);  // once
  EXPECT_EQ(iface.transmit_backlog(), 0u);
  EXPECT_EQ(sent_numbers(), count(0, sent));  // nothing lost, in order
  EXPECT_EQ(link_counters().link.drop_tx_queue_full, 0u);
  ASSERT_EQ(send_numbered(sent), Status::ok);
  // It runs again only after another would_block.
  nic.limit_transmit_room(0);
  nic.free_transmit_room(1);
  EXPECT_EQ(writable, 1);
}

// A handler resumes sending from on_writable: the usual pattern.
TEST_F(BackpressureTest, ASenderResumesFromOnWritable) {
  nic.limit_transmit_room(0);
  uint32_t next = 0;
  const uint32_t total = 2000;
  std::function<void()> pump = [&] {
    while (next < total && send_numbered(next) == Status::ok) ++next;
  };
  socket.on_writable([&] { pump(); });
  pump();
  for (int round = 0; round < 100 && nic.transmitted.size() < total; ++round)
    nic.free_transmit_room(200);
  EXPECT_EQ(next, total);
  EXPECT_EQ(sent_numbers(), count(0, total));
  EXPECT_EQ(link_counters().link.drop_tx_queue_full, 0u);
  EXPECT_EQ(nic.stats().tx_dropped, 0u);
}

// What does not ask (echo replies) fills the queue to its capacity; past
// it frames are dropped and counted, and the buffers come back. (A NIC
// with more buffers than the queue holds, so the pings still arrive.)
TEST(BackpressureQueue, PastItsCapacityFramesAreDroppedAndCounted) {
  ManualClock clock;
  ::net::MemoryNic nic(stack_mac, 1500, 2 * Link::queue_frames);
  ::net::Stack stack(clock, test_stack_config());
  ::net::Interface& iface = stack.add_interface(nic);
  iface.configure(stack_ip, ::net::ip4::netmask_of(24));
  nic.inject(
      ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
  nic.transmitted.clear();
  nic.limit_transmit_room(0);
  const std::size_t pings = Link::queue_frames + 20;
  for (std::size_t i = 0; i < pings; ++i) {
    nic.inject(
        ip_frame(ip4(peer_ip, stack_ip, 1, icmp_echo(1, uint16_t(i), {}), {.id = uint16_t(i)})));
  }
  EXPECT_EQ(stack.counters().icmp4.tx_echo_replies, pings);
  EXPECT_EQ(iface.transmit_backlog(), Link::queue_frames);
  EXPECT_EQ(iface.counters().link.drop_tx_queue_full, 20u);
  auto socket = *stack.udp().bind(5000);
  EXPECT_EQ(socket.send_to({peer_ip, 9}, "x", 1), Status::would_block);
  nic.free_transmit_room(Link::queue_frames);
  ASSERT_EQ(nic.transmitted.size(), Link::queue_frames);
  for (std::size_t i = 0; i < Link::queue_frames; ++i) {
    EXPECT_EQ(sent_icmp(nic.transmitted[i]).rest & 0xffff, i);  // the first ones, in order
  }
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
}

// The queue belongs to the interface: a full NIC on one interface does not
// hold back another's.
TEST(BackpressureInterfaces, EachInterfaceHasItsOwnQueue) {
  ManualClock clock;
  ::net::MemoryNic nic0(stack_mac), nic1(Mac{{0x02, 0, 0, 0, 1, 1}});
  ::net::Stack stack(clock, test_stack_config());
  ::net::Interface& if0 = stack.add_interface(nic0);
  ::net::Interface& if1 = stack.add_interface(nic1);
  if0.configure(stack_ip, ::net::ip4::netmask_of(24));
  if1.configure(Ip{10, 1, 0, 2}, ::net::ip4::netmask_of(24));
  auto socket = *stack.udp().bind(5000);
  nic0.limit_transmit_room(0);
  while (socket.send_to({Ip{10, 0, 0, 255}, 9}, "x", 1) == Status::ok) {
  }
  EXPECT_EQ(if0.transmit_backlog(), Link::queue_high);
  nic1.transmitted.clear();
  EXPECT_EQ(socket.send_to({Ip{10, 1, 0, 255}, 9}, "x", 1), Status::ok);
  EXPECT_EQ(nic1.transmitted.size(), 1u);
  EXPECT_EQ(if1.transmit_backlog(), 0u);
}

}  // namespace
}  // namespace keel::test
