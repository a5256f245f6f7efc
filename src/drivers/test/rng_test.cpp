// virtio::Rng against a fake transport and a test playing the device:
// set-up, partial fills, a device that lies, one that never answers.
#include "drivers/virtio/rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "drivers/test/fake_device.hpp"

using namespace keel::drivers::virtio;
using namespace keel::drivers::virtio::fake;

namespace {

// The device answering the driver's next request: `n` bytes of `value`, reporting `claimed`
// bytes written (n if 0).
void fill(DeviceQueue& d, uint32_t n, uint8_t value, uint32_t claimed = 0) {
  uint16_t head = d.take();
  Desc desc = d.desc()[head];
  ASSERT_TRUE(desc.flags & Virtqueue::desc_f_write);
  n = std::min(n, desc.length);
  std::memset(reinterpret_cast<void*>(desc.address), value, n);
  d.complete(head, claimed ? claimed : n);
}

uint64_t fake_now = 0;
uint64_t ticking_clock() { return fake_now += 1000; }

struct RngTest : ::testing::Test {
  FakeTransport* transport = nullptr;
  std::unique_ptr<Rng> rng;
  void SetUp() override {
    fake_now = 0;
    auto t = std::make_unique<FakeTransport>();
    t->offered = feature::version_1 | (1ull << 5);
    transport = t.get();
    rng = Rng::create(std::move(t));
    ASSERT_TRUE(rng);
  }
  DeviceQueue device() { return {transport->queues[0]}; }
};

}  // namespace

TEST_F(RngTest, TakesNoFeatureButVersion1AndAsksForNoInterrupts) {
  EXPECT_EQ(transport->accepted, feature::version_1);
  EXPECT_TRUE(transport->status_byte & status::driver_ok);
  EXPECT_TRUE(transport->status_byte & status::features_ok);
  EXPECT_EQ(transport->queues[0]->size(), 8);  // one buffer in flight needs no more
  DeviceQueue d = device();
  EXPECT_EQ(d.avail()[0] & Virtqueue::avail_f_no_interrupt, Virtqueue::avail_f_no_interrupt);
}

TEST_F(RngTest, ReadsWhatTheDeviceWrites) {
  DeviceQueue d = device();
  transport->on_notify = [&] { fill(d, 64, 0xab); };
  uint8_t out[64] = {};
  EXPECT_EQ(rng->read(out, 1'000'000, ticking_clock), 64u);
  for (uint8_t b : out) EXPECT_EQ(b, 0xab);
}

TEST_F(RngTest, AsksAgainAfterAShortAnswer) {
  DeviceQueue d = device();
  uint8_t value = 1;
  transport->on_notify = [&] { fill(d, 10, value++); };  // 10 bytes per request
  uint8_t out[64] = {};
  EXPECT_EQ(rng->read(out, 1'000'000, ticking_clock), 64u);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[10], 2);
  EXPECT_EQ(out[63], 7);
}

TEST_F(RngTest, ADeviceThatClaimsMoreThanItWasGivenIsNotTrustedAgain) {
  DeviceQueue d = device();
  transport->on_notify = [&] { fill(d, 64, 0xcd, 4096); };
  uint8_t out[64] = {};
  EXPECT_EQ(rng->read(out, 1'000'000, ticking_clock), 0u);
  EXPECT_EQ(rng->queue_stats().bad_length, 1u);
  EXPECT_EQ(out[0], 0);  // nothing copied
  transport->on_notify = [&] { fill(d, 64, 0xab); };
  EXPECT_EQ(rng->read(out, 1'000'000, ticking_clock), 0u);
}

TEST_F(RngTest, ASilentDeviceCostsNoMoreThanTheDeadline) {
  uint8_t out[64] = {};
  EXPECT_EQ(rng->read(out, 50'000, ticking_clock), 0u);
  EXPECT_LE(fake_now, 51'000u);
  // The buffer stays with the device: a late answer is taken by the next read.
  DeviceQueue d = device();
  EXPECT_TRUE(d.has_available());
  fill(d, 64, 0x11);
  EXPECT_EQ(rng->read(out, fake_now + 50'000, ticking_clock), 64u);
  EXPECT_EQ(out[0], 0x11);
}

TEST_F(RngTest, ResetsTheDeviceWhenDoneSoItWritesNoMore) {
  int resets = 0;
  transport->resets = &resets;
  uint8_t out[64];
  rng->read(out, 1000, ticking_clock);  // leaves a buffer with the device
  rng.reset();
  EXPECT_EQ(resets, 1);
}

TEST(RngSetUp, AModernDeviceWithoutVersion1IsRefused) {
  auto t = std::make_unique<FakeTransport>();
  t->offered = 0;
  uint8_t last_status = 0;
  t->last_status = &last_status;
  EXPECT_EQ(Rng::create(std::move(t)), nullptr);
  EXPECT_EQ(last_status, status::failed);
}

TEST(RngSetUp, ALegacyDeviceNeedsNoVersion1) {
  auto t = std::make_unique<FakeTransport>();
  t->offered = 0;
  t->is_legacy = true;
  auto rng = Rng::create(std::move(t));
  ASSERT_TRUE(rng);
  EXPECT_TRUE(rng->transport().legacy());
}
