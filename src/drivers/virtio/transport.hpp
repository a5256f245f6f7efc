// How a virtio driver reaches its device, whatever the bus (virtio 1.1, 4):
// feature bits, the status byte, queue set-up, notifications, the device
// configuration and the interrupt. transport_pci (modern and legacy) and
// transport_mmio (v2 and legacy v1) implement it; device drivers (net.cpp)
// only see this.
#pragma once
#include <cstdint>
#include <string>

#include "virtqueue.hpp"

namespace keel::drivers::virtio {

// Device status bits (2.1).
namespace status {
inline constexpr uint8_t acknowledge = 1;
inline constexpr uint8_t driver = 2;
inline constexpr uint8_t driver_ok = 4;
inline constexpr uint8_t features_ok = 8;
inline constexpr uint8_t needs_reset = 64;
inline constexpr uint8_t failed = 128;
}  // namespace status

// Reserved feature bits (6).
namespace feature {
inline constexpr uint64_t notify_on_empty = 1ull << 24;
inline constexpr uint64_t any_layout = 1ull << 27;
inline constexpr uint64_t ring_indirect_desc = 1ull << 28;
inline constexpr uint64_t ring_event_idx = 1ull << 29;
inline constexpr uint64_t version_1 = 1ull << 32;
inline constexpr uint64_t access_platform = 1ull << 33;
}  // namespace feature

// Device types (5).
inline constexpr uint32_t device_net = 1;

class Transport {
 public:
  virtual ~Transport() = default;

  // "pci 00:03.0 modern", "mmio 0xfeb00e00 legacy": for logs.
  virtual std::string describe() const = 0;
  // Legacy (pre-1.0) devices: 32 feature bits, guest-endian config, the
  // legacy net header, page-frame queue addresses.
  virtual bool legacy() const = 0;

  virtual void reset() = 0;
  virtual uint8_t status() = 0;
  virtual void set_status(uint8_t bits) = 0;  // the whole byte
  virtual uint64_t device_features() = 0;
  virtual void set_driver_features(uint64_t features) = 0;

  // Queue `index`'s largest size, 0 when the queue does not exist.
  virtual uint16_t queue_max_size(uint16_t index) = 0;
  // Legacy PCI queues have exactly the device's size (4.1.4.8).
  virtual bool queue_size_fixed() const { return false; }
  // Tells the device where `queue` lives and enables it.
  virtual bool setup_queue(const Virtqueue& queue) = 0;
  virtual void notify(uint16_t queue_index) = 0;

  // Device-specific configuration (5.x.4), byte by byte.
  virtual uint8_t config8(uint32_t offset) = 0;
  uint16_t config16(uint32_t offset) {
    return uint16_t(config8(offset) | config8(offset + 1) << 8);
  }

  // Routes the device's interrupt (all queues and config changes) to
  // os::Events event `event`. False when it cannot.
  virtual bool setup_interrupt(int event) = 0;
  // Called first by the event handler: acknowledges a line interrupt so the
  // next completion raises a new edge. Nothing to do for MSI-X.
  virtual void acknowledge_interrupt() = 0;
};

}  // namespace keel::drivers::virtio
