// virtio::Net against a fake transport and a test playing the device: feature
// negotiation, zero-copy receive, batching, and a device that lies.
#include "drivers/virtio/net.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "drivers/test/fake_device.hpp"
#include "drivers/test/fake_os.hpp"
#include "drivers/virtio/net_header.hpp"

using namespace keel::drivers::virtio;
using namespace keel::drivers::virtio::fake;

namespace {

// A virtio-net device offering what Keel's driver takes, MAC 52:54:00:ab:cd:ef.
std::unique_ptr<FakeTransport> net_transport() {
  auto t = std::make_unique<FakeTransport>();
  t->offered = feature::version_1 | net_feature::mac | net_feature::csum | net_feature::guest_csum |
               net_feature::mrg_rxbuf | (1ull << 7);
  const uint8_t mac[6] = {0x52, 0x54, 0, 0xab, 0xcd, 0xef};
  std::memcpy(t->config, mac, sizeof mac);
  return t;
}

struct NetTest : ::testing::Test {
  FakeTransport* transport = nullptr;
  std::unique_ptr<Net> nic;
  std::vector<net::PacketPtr> received;

  void SetUp() override {
    auto t = net_transport();
    transport = t.get();
    // tso=off: one buffer per frame (net_receive_test.cpp merges them).
    nic = Net::create(std::move(t), 0, {.receive_segmentation = false});
    ASSERT_TRUE(nic);
    nic->set_receive([this](net::PacketPtr p) { received.push_back(std::move(p)); });
  }
  DeviceQueue rx() { return {transport->queues[receive_queue]}; }
  DeviceQueue tx() { return {transport->queues[transmit_queue]}; }
};

TEST_F(NetTest, NegotiatesWhatItUsesOnly) {
  EXPECT_EQ(transport->accepted,
            feature::version_1 | net_feature::mac | net_feature::csum | net_feature::guest_csum);
  EXPECT_TRUE(transport->status_byte & status::driver_ok);
  EXPECT_TRUE(transport->status_byte & status::features_ok);
  EXPECT_EQ(nic->mac().to_string(), "52:54:00:ab:cd:ef");
  EXPECT_TRUE(nic->offloads().tx_checksum);
  EXPECT_TRUE(nic->offloads().rx_checksum);
}

TEST_F(NetTest, FillsTheReceiveRingInOneBatch) {
  DeviceQueue dev = rx();
  EXPECT_EQ(dev.avail()[1], 16);  // every descriptor, published once
  EXPECT_EQ(transport->notifications[receive_queue], 1);
}

TEST_F(NetTest, ReceivesIntoTheBufferItPosted) {
  DeviceQueue dev = rx();
  uint16_t head = dev.take();
  Desc d = dev.desc()[head];
  EXPECT_TRUE(d.flags & Virtqueue::desc_f_write);
  auto* buffer = reinterpret_cast<uint8_t*>(d.address);
  NetHeader h{};
  h.flags = NetHeader::flag_data_valid;
  std::memcpy(buffer, &h, sizeof h);
  std::memset(buffer + sizeof h, 0xab, 60);
  dev.complete(head, sizeof h + 60);
  event_handler();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0]->data(), buffer + sizeof h);  // no copy
  EXPECT_EQ(received[0]->size(), 60u);
  EXPECT_TRUE(received[0]->flags & net::Packet::checksum_verified);
  EXPECT_EQ(received[0]->headroom() % 4, 2u);  // IPv4 header 4-byte aligned
  EXPECT_EQ(dev.avail()[1], 17);               // refilled
  EXPECT_EQ(nic->stats().rx_packets, 1u);
}

TEST_F(NetTest, LyingDeviceIsCountedNotTrusted) {
  DeviceQueue dev = rx();
  uint16_t a = dev.take(), b = dev.take();
  dev.complete(a, 3);       // shorter than the header
  dev.complete(b, 100000);  // longer than the buffer
  dev.complete(999, 64);    // no such descriptor
  dev.complete(a, 64);      // already returned
  event_handler();
  EXPECT_TRUE(received.empty());
  auto s = nic->driver_stats();
  EXPECT_EQ(s.rx_bad_length, 2u);
  EXPECT_EQ(s.rx_queue.bad_length, 1u);
  EXPECT_EQ(s.rx_queue.bad_id, 2u);
  EXPECT_EQ(nic->stats().rx_dropped, 2u);
  EXPECT_EQ(dev.avail()[1], 18);  // both buffers went back into the ring
}

TEST_F(NetTest, TransmitsABatchWithOneNotification) {
  std::vector<net::PacketPtr> frames;
  for (int i = 0; i < 3; ++i) {
    auto p = nic->allocate_packet();
    ASSERT_TRUE(p);
    std::memset(p->append(42), i, 42);
    if (i == 1) {
      p->flags |= net::Packet::checksum_partial;
      p->csum_start = 34;
      p->csum_offset = 6;
    }
    frames.push_back(std::move(p));
  }
  EXPECT_EQ(nic->transmit(frames), 3u);
  EXPECT_EQ(transport->notifications[transmit_queue], 1);
  DeviceQueue dev = tx();
  for (int i = 0; i < 3; ++i) {
    uint16_t head = dev.take();
    Desc d = dev.desc()[head];
    EXPECT_FALSE(d.flags & Virtqueue::desc_f_write);
    EXPECT_EQ(d.length, sizeof(NetHeader) + 42);
    NetHeader h;
    std::memcpy(&h, reinterpret_cast<void*>(d.address), sizeof h);
    EXPECT_EQ(h.flags, i == 1 ? NetHeader::flag_needs_csum : 0);
    if (i == 1) {
      EXPECT_EQ(h.csum_start, 34);
    }
    EXPECT_EQ(reinterpret_cast<uint8_t*>(d.address)[sizeof h], i);
    dev.complete(head, 0);
  }
  // Completions are reaped by the next transmit: the ring is whole again.
  auto p = nic->allocate_packet();
  p->append(60);
  EXPECT_EQ(nic->transmit(std::move(p)), 1u);
  EXPECT_EQ(tx().q->in_flight(), 1);
}

TEST_F(NetTest, FullTransmitRingDropsAndCounts) {
  for (int i = 0; i < 20; ++i) {
    auto p = nic->allocate_packet();
    p->append(60);
    nic->transmit(std::move(p));
  }
  EXPECT_EQ(nic->stats().tx_packets, 16u);
  EXPECT_EQ(nic->stats().tx_dropped, 4u);
  EXPECT_EQ(nic->driver_stats().tx_queue_full, 4u);
}

// Back-pressure: a full ring says so, turns on the tx interrupt, and says
// when room is back; frames are never dropped while the stack waits.
TEST_F(NetTest, FullRingReportsNoRoomAndWakesTheStackWhenFramesFinish) {
  int ready = 0;
  nic->set_transmit_ready([&] { ++ready; });
  for (int i = 0; i < 16; ++i) {
    ASSERT_GT(nic->transmit_room(), 0u);
    auto p = nic->allocate_packet();
    p->append(60);
    ASSERT_EQ(nic->transmit(std::move(p)), 1u);
  }
  int triggered_before = triggered;
  EXPECT_EQ(nic->transmit_room(), 0u);
  EXPECT_EQ(nic->driver_stats().tx_full_waits, 1u);
  EXPECT_EQ(ready, 0);
  // The device finishes two frames and interrupts: the event reaps them
  // and tells the stack once.
  DeviceQueue dev = tx();
  dev.complete(dev.take(), 0);
  dev.complete(dev.take(), 0);
  event_handler();
  EXPECT_EQ(ready, 1);
  EXPECT_EQ(nic->transmit_room(), 2u);
  event_handler();
  EXPECT_EQ(ready, 1);  // nothing new to say
  EXPECT_EQ(nic->stats().tx_dropped, 0u);
  EXPECT_GE(triggered, triggered_before);
}

// A notification the device lost must not stop transmission for good: the
// reap timer notifies again when frames are in flight and none finished
// since it last ran, and stays quiet while the device makes progress.
TEST_F(NetTest, ReapTimerNotifiesAgainWhenNothingFinishes) {
  for (int i = 0; i < 3; ++i) {
    auto p = nic->allocate_packet();
    p->append(60);
    ASSERT_EQ(nic->transmit(std::move(p)), 1u);
  }
  ASSERT_TRUE(reap_handler);
  const int kicked = transport->notifications[transmit_queue];
  reap_handler(1);
  EXPECT_EQ(transport->notifications[transmit_queue], kicked + 1);
  EXPECT_EQ(nic->driver_stats().tx_rekicks, 1u);
  DeviceQueue dev = tx();
  dev.complete(dev.take(), 0);
  reap_handler(1);
  EXPECT_EQ(transport->notifications[transmit_queue], kicked + 1) << "progress: no notification";
  EXPECT_EQ(tx().q->in_flight(), 2);
  reap_handler(1);
  EXPECT_EQ(transport->notifications[transmit_queue], kicked + 2);
  dev.complete(dev.take(), 0);
  dev.complete(dev.take(), 0);
  reap_handler(1);
  EXPECT_EQ(tx().q->in_flight(), 0);
  EXPECT_EQ(nic->driver_stats().tx_rekicks, 2u);
}

// A frame the host handed over with a partial checksum (NEEDS_CSUM) stays
// partial, so a router forwarding it has it completed on the way out.
TEST_F(NetTest, NeedsCsumFramesStayPartial) {
  DeviceQueue dev = rx();
  uint16_t head = dev.take();
  auto* buffer = reinterpret_cast<uint8_t*>(dev.desc()[head].address);
  NetHeader h{};
  h.flags = NetHeader::flag_needs_csum;
  h.csum_start = 34;
  h.csum_offset = 6;
  std::memcpy(buffer, &h, sizeof h);
  std::memset(buffer + sizeof h, 0, 60);
  dev.complete(head, sizeof h + 60);
  event_handler();
  ASSERT_EQ(received.size(), 1u);
  uint32_t flags = received[0]->flags;
  EXPECT_TRUE(flags & net::Packet::checksum_verified);
  EXPECT_TRUE(flags & net::Packet::checksum_partial);
  EXPECT_EQ(received[0]->csum_start, 34);
  EXPECT_EQ(received[0]->csum_offset, 6);
  received[0]->pull(14);  // past Ethernet: the start moves along
  EXPECT_EQ(received[0]->csum_start, 20);
}

// QEMU's 256-entry rings in a small guest, whose pool (a sixteenth of memory,
// at least 128 buffers) holds no more than the receive ring: the ring must
// not take every buffer, or nothing is left to answer with (an ARP reply, a
// UDP answer) and the guest goes deaf (issue 24, docs/decisions/0090).
TEST(NetMemoryTest, SmallGuestsKeepBuffersToSendWith) {
  constexpr std::size_t mib = std::size_t(1) << 20;
  for (std::size_t megabytes : {1, 3, 4, 6, 8, 10, 12, 64}) {
    SCOPED_TRACE(megabytes);
    guest_memory = megabytes * mib;
    auto t = net_transport();
    t->max_queue_size = 256;
    FakeTransport* transport = t.get();
    auto nic = Net::create(std::move(t), 0);
    ASSERT_TRUE(nic);
    DeviceQueue rx{transport->queues[receive_queue]};
    uint16_t posted = rx.avail()[1];
    std::vector<net::PacketPtr> spare;
    while (net::PacketPtr p = nic->allocate_packet()) spare.push_back(std::move(p));
    EXPECT_GE(posted, 64);            // half the smallest pool
    EXPECT_GE(spare.size(), posted);  // as many to send with as to receive into
  }
  guest_memory = 64 * mib;
}

// HOST_TSO4/6 (5.1.6.2): taken only beside CSUM; a segmentation_offload frame
// of 64 KiB (a heap buffer: larger than a page) goes out as one descriptor
// with gso_type, gso_size and hdr_len (Ethernet + IP + TCP with options).
std::unique_ptr<Net> tso_nic(uint64_t extra, FakeTransport*& transport) {
  auto t = net_transport();
  t->offered |= extra;
  transport = t.get();
  return Net::create(std::move(t), 0, {.receive_segmentation = false});
}

net::PacketPtr tso_frame(uint16_t ethertype, uint32_t ip_len, uint32_t payload) {
  constexpr uint32_t tcp_len = 32;  // with timestamps
  uint32_t size = 14 + ip_len + tcp_len + payload;
  auto p = net::allocate_heap_packet(size);
  uint8_t* f = p->append(size);
  std::memset(f, 0x5a, size);
  f[12] = uint8_t(ethertype >> 8);
  f[13] = uint8_t(ethertype);
  f[14 + ip_len + 12] = uint8_t(tcp_len / 4 << 4);
  p->flags |= net::Packet::checksum_partial | net::Packet::segmentation_offload;
  p->csum_start = uint16_t(14 + ip_len);
  p->csum_offset = 16;
  p->gso_size = 1448;
  return p;
}

TEST(NetTsoTest, NegotiatesTsoOnlyWithCsum) {
  FakeTransport* t = nullptr;
  auto nic = tso_nic(net_feature::host_tso4 | net_feature::host_tso6, t);
  ASSERT_TRUE(nic);
  EXPECT_TRUE(t->accepted & net_feature::host_tso4);
  EXPECT_TRUE(t->accepted & net_feature::host_tso6);
  EXPECT_TRUE(nic->offloads().tso4 && nic->offloads().tso6);

  auto t2 = net_transport();
  t2->offered = (t2->offered & ~net_feature::csum) | net_feature::host_tso4;
  FakeTransport* raw = t2.get();
  auto without = Net::create(std::move(t2), 1);
  ASSERT_TRUE(without);
  EXPECT_FALSE(raw->accepted & net_feature::host_tso4);
  EXPECT_FALSE(without->offloads().tso4);
}

TEST(NetTsoTest, FillsTheGsoFieldsForBothFamilies) {
  FakeTransport* t = nullptr;
  auto nic = tso_nic(net_feature::host_tso4 | net_feature::host_tso6, t);
  ASSERT_TRUE(nic);
  constexpr uint32_t payload = 65536 - 20 - 32 - 40;
  EXPECT_EQ(nic->transmit(tso_frame(0x0800, 20, payload)), 1u);
  EXPECT_EQ(nic->transmit(tso_frame(0x86dd, 40, 1000)), 1u);
  DeviceQueue dev{t->queues[transmit_queue]};
  struct Want {
    uint8_t type;
    uint16_t hdr_len;
    uint32_t size;
  } want[] = {{NetHeader::gso_tcpv4, 14 + 20 + 32, 14 + 20 + 32 + payload},
              {NetHeader::gso_tcpv6, 14 + 40 + 32, 14 + 40 + 32 + 1000}};
  for (const Want& w : want) {
    uint16_t head = dev.take();
    Desc d = dev.desc()[head];
    EXPECT_FALSE(d.flags & Virtqueue::desc_f_next);  // one buffer, no chain
    EXPECT_EQ(d.length, sizeof(NetHeader) + w.size);
    NetHeader h;
    std::memcpy(&h, reinterpret_cast<void*>(d.address), sizeof h);
    EXPECT_EQ(h.flags, NetHeader::flag_needs_csum);
    EXPECT_EQ(h.gso_type, w.type);
    EXPECT_EQ(h.gso_size, 1448);
    EXPECT_EQ(h.hdr_len, w.hdr_len);
    EXPECT_EQ(h.csum_start, w.hdr_len - 32);
    EXPECT_EQ(h.csum_offset, 16);
    dev.complete(head, 0);
  }
}

TEST(NetTsoTest, RefusesSegmentationTheDeviceDidNotTake) {
  FakeTransport* t = nullptr;
  auto nic = tso_nic(net_feature::host_tso4, t);
  ASSERT_TRUE(nic);
  EXPECT_EQ(nic->transmit(tso_frame(0x86dd, 40, 3000)), 0u);
  EXPECT_EQ(nic->driver_stats().tx_bad_segmentation, 1u);
  EXPECT_EQ(nic->stats().tx_dropped, 1u);
}

}  // namespace
