// virtio::Rng against a fake transport and a test playing the device:
// set-up, partial fills, a device that lies, one that never answers.
#include "drivers/virtio/rng.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

using namespace keel::drivers::virtio;

namespace {

struct Desc {
  uint64_t address;
  uint32_t length;
  uint16_t flags, next;
};

class FakeTransport final : public Transport {
 public:
  bool is_legacy = false;
  uint64_t offered = feature::version_1 | (1ull << 5);
  uint64_t accepted = ~0ull;
  uint8_t status_byte = 0;
  // Outlive the transport, which the Rng owns and destroys.
  int* resets = nullptr;
  uint8_t* last_status = nullptr;
  const Virtqueue* queue = nullptr;
  std::function<void()> on_notify;

  std::string describe() const override { return "fake"; }
  bool legacy() const override { return is_legacy; }
  void reset() override {
    status_byte = 0;
    if (resets) ++*resets;
  }
  uint8_t status() override { return status_byte; }
  void set_status(uint8_t bits) override {
    status_byte = bits;
    if (last_status) *last_status = bits;
  }
  uint64_t device_features() override { return offered; }
  void set_driver_features(uint64_t f) override { accepted = f; }
  uint16_t queue_max_size(uint16_t index) override { return index == 0 ? 64 : 0; }
  bool setup_queue(const Virtqueue& q) override {
    queue = &q;
    return true;
  }
  void notify(uint16_t) override {
    if (on_notify) on_notify();
  }
  uint8_t config8(uint32_t) override { return 0; }
  bool setup_interrupt(int) override { return true; }
  void acknowledge_interrupt() override {}
};

// The device's side of the queue.
struct Device {
  const Virtqueue* q;
  uint16_t seen = 0;
  Desc* desc() { return reinterpret_cast<Desc*>(q->descriptor_address()); }
  uint16_t* avail() { return reinterpret_cast<uint16_t*>(q->available_address()); }
  uint16_t* used() { return reinterpret_cast<uint16_t*>(q->used_address()); }
  bool has_available() { return avail()[1] != seen; }
  // Fills up to `n` bytes of the next buffer with `value` and reports `claimed` (n if 0).
  void fill(uint32_t n, uint8_t value, uint32_t claimed = 0) {
    uint16_t head = avail()[2 + (seen++ % q->size())];
    Desc d = desc()[head];
    ASSERT_TRUE(d.flags & Virtqueue::desc_f_write);
    n = std::min(n, d.length);
    std::memset(reinterpret_cast<void*>(d.address), value, n);
    uint16_t i = used()[1];
    auto* ring = reinterpret_cast<uint32_t*>(q->used_address() + 4);
    ring[2 * (i % q->size())] = head;
    ring[2 * (i % q->size()) + 1] = claimed ? claimed : n;
    used()[1] = uint16_t(i + 1);
  }
};

uint64_t fake_now = 0;
uint64_t ticking_clock() { return fake_now += 1000; }

struct RngTest : ::testing::Test {
  FakeTransport* transport = nullptr;
  std::unique_ptr<Rng> rng;
  void SetUp() override {
    fake_now = 0;
    auto t = std::make_unique<FakeTransport>();
    transport = t.get();
    rng = Rng::create(std::move(t));
    ASSERT_TRUE(rng);
  }
  Device device() { return {transport->queue}; }
};

}  // namespace

TEST_F(RngTest, TakesNoFeatureButVersion1AndAsksForNoInterrupts) {
  EXPECT_EQ(transport->accepted, feature::version_1);
  EXPECT_TRUE(transport->status_byte & status::driver_ok);
  EXPECT_TRUE(transport->status_byte & status::features_ok);
  EXPECT_EQ(transport->queue->size(), 8);  // one buffer in flight needs no more
  Device d = device();
  EXPECT_EQ(d.avail()[0] & Virtqueue::avail_f_no_interrupt, Virtqueue::avail_f_no_interrupt);
}

TEST_F(RngTest, ReadsWhatTheDeviceWrites) {
  Device d = device();
  transport->on_notify = [&] { d.fill(64, 0xab); };
  uint8_t out[64] = {};
  EXPECT_EQ(rng->read(out, 1'000'000, ticking_clock), 64u);
  for (uint8_t b : out) EXPECT_EQ(b, 0xab);
}

TEST_F(RngTest, AsksAgainAfterAShortAnswer) {
  Device d = device();
  uint8_t value = 1;
  transport->on_notify = [&] { d.fill(10, value++); };  // 10 bytes per request
  uint8_t out[64] = {};
  EXPECT_EQ(rng->read(out, 1'000'000, ticking_clock), 64u);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[10], 2);
  EXPECT_EQ(out[63], 7);
}

TEST_F(RngTest, ADeviceThatClaimsMoreThanItWasGivenIsNotTrustedAgain) {
  Device d = device();
  transport->on_notify = [&] { d.fill(64, 0xcd, 4096); };
  uint8_t out[64] = {};
  EXPECT_EQ(rng->read(out, 1'000'000, ticking_clock), 0u);
  EXPECT_EQ(rng->queue_stats().bad_length, 1u);
  EXPECT_EQ(out[0], 0);  // nothing copied
  transport->on_notify = [&] { d.fill(64, 0xab); };
  EXPECT_EQ(rng->read(out, 1'000'000, ticking_clock), 0u);
}

TEST_F(RngTest, ASilentDeviceCostsNoMoreThanTheDeadline) {
  uint8_t out[64] = {};
  EXPECT_EQ(rng->read(out, 50'000, ticking_clock), 0u);
  EXPECT_LE(fake_now, 51'000u);
  // The buffer stays with the device: a late answer is taken by the next read.
  Device d = device();
  EXPECT_TRUE(d.has_available());
  d.fill(64, 0x11);
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
