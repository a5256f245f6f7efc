// virtio::Net receiving coalesced TCP segments (GUEST_TSO4/6) over mergeable
// buffers (MRG_RXBUF, virtio 1.1 5.1.6.3-5.1.6.4), with a test playing the
// device: a frame over several buffers arrives whole, its partial checksum
// completes correctly, and a device that lies about num_buffers, gso or
// csum fields is counted, never believed.
#include "drivers/virtio/net_receive.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "drivers/test/fake_device.hpp"
#include "drivers/test/fake_os.hpp"
#include "drivers/virtio/net.hpp"
#include "drivers/virtio/net_header.hpp"
#include "net/wire/checksum.hpp"

using namespace keel::drivers::virtio;
using namespace keel::drivers::virtio::fake;

namespace {

constexpr uint64_t coalescing = net_feature::guest_csum | net_feature::guest_tso4 |
                                net_feature::guest_tso6 | net_feature::mrg_rxbuf;
constexpr uint32_t ip_at = 14, tcp_at = 34, payload_at = 54;  // Ethernet, IPv4, TCP

std::unique_ptr<Net> nic_offering(uint64_t offered, FakeTransport*& transport,
                                  Net::Options options = {}) {
  auto t = std::make_unique<FakeTransport>();
  t->offered = feature::version_1 | net_feature::mac | net_feature::csum | offered;
  t->max_queue_size = 64;  // room for a 64 KiB frame in 2 KiB buffers
  transport = t.get();
  return Net::create(std::move(t), 0, options);
}

// Ethernet + IPv4 + TCP with `payload` bytes, its TCP checksum field holding
// the pseudo-header sum only (NEEDS_CSUM, 5.1.6.4.1).
std::vector<uint8_t> tcp_frame(uint32_t payload) {
  std::vector<uint8_t> f(payload_at + payload);
  f[12] = 0x08;
  f[ip_at] = 0x45;
  uint16_t ip_len = uint16_t(20 + 20 + payload);
  f[ip_at + 2] = uint8_t(ip_len >> 8);
  f[ip_at + 3] = uint8_t(ip_len);
  f[ip_at + 8] = 64;
  f[ip_at + 9] = 6;
  const uint8_t addresses[8] = {10, 0, 0, 1, 10, 0, 0, 2};
  std::memcpy(&f[ip_at + 12], addresses, 8);
  f[tcp_at + 12] = 5 << 4;
  for (uint32_t i = 0; i < payload; ++i) f[payload_at + i] = uint8_t(i * 7 + i / 251);
  uint32_t pseudo = net::wire::checksum_add(0, addresses, 8) + 6 + uint16_t(20 + payload);
  uint16_t field = net::wire::checksum_fold(pseudo);
  f[tcp_at + 16] = uint8_t(field >> 8);
  f[tcp_at + 17] = uint8_t(field);
  return f;
}

NetHeader gso_header(uint16_t buffers) {
  NetHeader h{};
  h.flags = NetHeader::flag_needs_csum;
  h.gso_type = NetHeader::gso_tcpv4;
  h.gso_size = 1448;
  h.hdr_len = payload_at;
  h.csum_start = tcp_at;
  h.csum_offset = 16;
  h.num_buffers = buffers;
  return h;
}

struct Coalesced : ::testing::Test {
  FakeTransport* transport = nullptr;
  std::unique_ptr<Net> nic;
  std::vector<net::PacketPtr> received;

  void SetUp() override {
    nic = nic_offering(coalescing, transport);
    ASSERT_TRUE(nic);
    nic->set_receive([this](net::PacketPtr p) { received.push_back(std::move(p)); });
  }
  DeviceQueue rx() { return {transport->queues[receive_queue]}; }

  // Writes header + frame over as many posted buffers as it takes, each
  // filled to its length (5.1.6.4: all but the last completely); `buffers`
  // goes into num_buffers, `complete` of them are put in the used ring.
  std::size_t device_writes(DeviceQueue& dev, NetHeader h, const std::vector<uint8_t>& frame,
                            int buffers_said = -1, int complete = -1) {
    std::vector<uint8_t> bytes(sizeof h + frame.size());
    std::vector<std::pair<uint16_t, uint32_t>> used;
    std::size_t at = 0;
    while (at < bytes.size()) {
      uint16_t head = dev.take();
      Desc d = dev.desc()[head];
      uint32_t n = uint32_t(std::min<std::size_t>(d.length, bytes.size() - at));
      used.push_back({head, n});
      at += n;
    }
    h.num_buffers = uint16_t(buffers_said >= 0 ? buffers_said : int(used.size()));
    std::memcpy(bytes.data(), &h, sizeof h);
    std::memcpy(bytes.data() + sizeof h, frame.data(), frame.size());
    at = 0;
    for (std::size_t i = 0; i < used.size(); ++i) {
      std::memcpy(reinterpret_cast<void*>(dev.desc()[used[i].first].address), bytes.data() + at,
                  used[i].second);
      at += used[i].second;
      if (complete < 0 || int(i) < complete) dev.complete(used[i].first, used[i].second);
    }
    return used.size();
  }
};

TEST(CoalescedNegotiation, TakenOnlyWithGuestCsumAndMergeableBuffers) {
  FakeTransport* t = nullptr;
  auto on = nic_offering(coalescing, t);
  ASSERT_TRUE(on);
  EXPECT_EQ(t->accepted & coalescing, coalescing);
  EXPECT_TRUE(on->offloads().rx_segmentation);

  auto off = nic_offering(coalescing, t, {.receive_segmentation = false});  // tso=off
  ASSERT_TRUE(off);
  EXPECT_EQ(t->accepted & coalescing, net_feature::guest_csum);
  EXPECT_FALSE(off->offloads().rx_segmentation);

  auto no_merge = nic_offering(coalescing & ~net_feature::mrg_rxbuf, t);
  ASSERT_TRUE(no_merge);  // 64 KiB buffers would be needed: no GUEST_TSO
  EXPECT_EQ(t->accepted & coalescing, net_feature::guest_csum);

  auto no_csum = nic_offering(coalescing & ~net_feature::guest_csum, t);
  ASSERT_TRUE(no_csum);  // 5.1.3.1: GUEST_TSO needs GUEST_CSUM
  EXPECT_EQ(t->accepted & coalescing, 0u);
}

TEST_F(Coalesced, AFrameOverSeveralBuffersArrivesWholeWithAValidChecksum) {
  DeviceQueue dev = rx();
  std::vector<uint8_t> frame = tcp_frame(9000);
  std::size_t buffers = device_writes(dev, gso_header(0), frame);
  EXPECT_GE(buffers, 5u);
  event_handler();
  ASSERT_EQ(received.size(), 1u);
  net::Packet& p = *received[0];
  ASSERT_EQ(p.size(), frame.size());
  // Bytes as sent, but for the checksum field the device left partial.
  EXPECT_EQ(std::memcmp(p.data(), frame.data(), frame.size()), 0);
  EXPECT_TRUE(p.flags & net::Packet::segmentation_offload);
  EXPECT_TRUE(p.flags & net::Packet::checksum_partial);
  EXPECT_TRUE(p.flags & net::Packet::checksum_verified);
  EXPECT_EQ(p.gso_size, 1448);
  EXPECT_EQ(p.csum_start, tcp_at);
  // Completing it (as a router's egress would) gives a checksum that
  // verifies over the pseudo-header and the whole segment (RFC 1071).
  net::complete_partial_checksum(p);
  const uint8_t* d = p.data();
  uint32_t sum = net::wire::checksum_add(0, d + ip_at + 12, 8) + 6 + uint16_t(p.size() - tcp_at);
  EXPECT_EQ(net::wire::checksum_fold(net::wire::checksum_add(sum, d + tcp_at, p.size() - tcp_at)),
            0xffff);
  auto s = nic->driver_stats();
  EXPECT_EQ(s.rx_merged, 1u);
  EXPECT_EQ(s.rx_large, 1u);
  EXPECT_EQ(nic->stats().rx_bytes, frame.size());
  EXPECT_EQ(dev.avail()[1], 64 + buffers);  // every buffer went back into the ring
}

TEST_F(Coalesced, AnMtuFrameStaysInItsOwnBuffer) {
  DeviceQueue dev = rx();
  NetHeader h{};
  h.flags = NetHeader::flag_data_valid;
  std::vector<uint8_t> frame = tcp_frame(1000);
  EXPECT_EQ(device_writes(dev, h, frame), 1u);
  event_handler();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0]->flags, uint32_t(net::Packet::checksum_verified));
  EXPECT_EQ(received[0]->capacity(), 2048u);  // the pool buffer the device wrote: no copy
  EXPECT_EQ(nic->driver_stats().rx_merged, 0u);
  EXPECT_EQ(nic->driver_stats().rx_large, 0u);
}

TEST_F(Coalesced, NumBuffersThatLieAreDropsNotCrashes) {
  DeviceQueue dev = rx();
  std::vector<uint8_t> small = tcp_frame(100);
  device_writes(dev, gso_header(0), small, 0);                // zero buffers
  device_writes(dev, gso_header(0), small, 1000);             // more than any frame needs
  device_writes(dev, gso_header(0), tcp_frame(5000), -1, 2);  // said 3+, published 2
  event_handler();
  EXPECT_TRUE(received.empty());
  EXPECT_EQ(nic->driver_stats().rx_bad_buffers, 3u);
  EXPECT_EQ(nic->stats().rx_dropped, 3u);
}

TEST_F(Coalesced, SegmentationAndChecksumFieldsAreChecked) {
  DeviceQueue dev = rx();
  std::vector<uint8_t> frame = tcp_frame(3000);
  NetHeader v6_on_v4 = gso_header(0);
  v6_on_v4.gso_type = NetHeader::gso_tcpv6;
  NetHeader no_csum = gso_header(0);
  no_csum.flags = NetHeader::flag_data_valid;
  NetHeader tiny = gso_header(0);
  tiny.gso_size = 1;
  NetHeader ecn = gso_header(0);
  ecn.gso_type |= NetHeader::gso_ecn;
  NetHeader outside = gso_header(0);
  outside.gso_type = NetHeader::gso_none;
  outside.csum_start = uint16_t(frame.size() - 1);
  for (const NetHeader& h : {v6_on_v4, no_csum, tiny, ecn, outside}) device_writes(dev, h, frame);
  event_handler();
  EXPECT_TRUE(received.empty());
  auto s = nic->driver_stats();
  EXPECT_EQ(s.rx_bad_segmentation, 4u);
  EXPECT_EQ(s.rx_bad_checksum, 1u);
  EXPECT_EQ(nic->stats().rx_dropped, 5u);
}

// Without GUEST_CSUM the device sets no flags (5.1.6.4): what it sets anyway
// is ignored, and a gso_type is refused.
TEST(ReceivedHeader, FlagsCountOnlyWhatWasNegotiated) {
  std::vector<uint8_t> frame = tcp_frame(100);
  net::Packet p(frame.data(), uint32_t(frame.size()), nullptr);
  p.set_window(0, uint32_t(frame.size()));
  NetHeader h{};
  h.flags = NetHeader::flag_data_valid;
  EXPECT_EQ(apply_received_header(h, 0, p), ReceivedHeader::ok);
  EXPECT_EQ(p.flags, 0u);
  EXPECT_EQ(apply_received_header(h, net_feature::guest_csum, p), ReceivedHeader::ok);
  EXPECT_EQ(p.flags, uint32_t(net::Packet::checksum_verified));
  h = gso_header(1);
  EXPECT_EQ(apply_received_header(h, net_feature::guest_csum, p), ReceivedHeader::bad_segmentation);
  EXPECT_EQ(p.flags, 0u);
  EXPECT_EQ(apply_received_header(h, net_feature::guest_csum | net_feature::guest_tso4, p),
            ReceivedHeader::ok);
  EXPECT_EQ(p.flags, uint32_t(net::Packet::checksum_verified | net::Packet::checksum_partial |
                              net::Packet::segmentation_offload));
}

}  // namespace
