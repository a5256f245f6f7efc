// What the virtio driver tests share: a test playing the device. FakeTransport is the
// transport a test inspects and drives; DeviceQueue is the device's side of one queue (it
// reads the available ring and writes the used ring in the queue's memory, as a device would).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "drivers/virtio/transport.hpp"
#include "drivers/virtio/virtqueue.hpp"

namespace keel::drivers::virtio::fake {

// A descriptor as the device reads it (virtio 1.2 §2.7.5).
struct Desc {
  uint64_t address;
  uint32_t length;
  uint16_t flags, next;
};

class FakeTransport final : public Transport {
 public:
  bool is_legacy = false;
  uint64_t offered = feature::version_1;
  uint64_t accepted = 0;
  uint8_t status_byte = 0;
  uint16_t max_queue_size = 16;
  const Virtqueue* queues[2] = {};
  int notifications[2] = {};
  uint8_t config[6] = {};
  std::function<void()> on_notify;  // the device answering at once, if set
  // Outlive the transport, which the driver owns and destroys.
  int* resets = nullptr;
  uint8_t* last_status = nullptr;

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
  uint16_t queue_max_size(uint16_t index) override { return index < 2 ? max_queue_size : 0; }
  bool setup_queue(const Virtqueue& q) override {
    queues[q.index()] = &q;
    return true;
  }
  void notify(uint16_t q) override {
    ++notifications[q];
    if (on_notify) on_notify();
  }
  uint8_t config8(uint32_t offset) override { return offset < sizeof config ? config[offset] : 0; }
  bool setup_interrupt(int) override { return true; }
  void acknowledge_interrupt() override {}
};

// The device's side of one queue.
struct DeviceQueue {
  const Virtqueue* q;
  uint16_t seen = 0;
  Desc* desc() { return reinterpret_cast<Desc*>(q->descriptor_address()); }
  uint16_t* avail() { return reinterpret_cast<uint16_t*>(q->available_address()); }
  uint16_t* used() { return reinterpret_cast<uint16_t*>(q->used_address()); }
  uint32_t* used_ring() { return reinterpret_cast<uint32_t*>(q->used_address() + 4); }
  bool has_available() { return avail()[1] != seen; }
  // Takes the next available head, as the device would.
  uint16_t take() { return avail()[2 + (seen++ % q->size())]; }
  void complete(uint32_t id, uint32_t length) {
    uint16_t i = used()[1];
    used_ring()[2 * (i % q->size())] = id;
    used_ring()[2 * (i % q->size()) + 1] = length;
    used()[1] = uint16_t(i + 1);
  }
};

}  // namespace keel::drivers::virtio::fake
