// virtio-rng, the entropy device (virtio 1.1, 5.4): one queue; the driver
// posts writable buffers and the device fills them with random bytes. Used
// once at boot to seed the kernel's generator (docs/decisions/0104), by
// polling: no interrupt, no event loop needed yet.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "transport.hpp"

namespace keel::drivers::virtio {

inline constexpr uint32_t device_entropy = 4;  // (5)

class Rng {
 public:
  using Clock = uint64_t (*)();  // monotonic nanoseconds

  static constexpr std::size_t max_request = 64;

  // nullptr when the device refuses the set-up (the transport is then
  // marked failed).
  static std::unique_ptr<Rng> create(std::unique_ptr<Transport> transport);
  // Resets the device: it lets go of the buffer and raises no interrupt.
  ~Rng();

  // Fills `out` (at most max_request bytes) with what the device gives
  // before `now()` passes `deadline_ns`; returns how many bytes came. A
  // device that claims more bytes than it was given is not trusted again.
  std::size_t read(std::span<uint8_t> out, uint64_t deadline_ns, Clock now);

  const Transport& transport() const { return *transport_; }
  const Virtqueue::Stats& queue_stats() const { return queue_->stats(); }

 private:
  explicit Rng(std::unique_ptr<Transport> transport) : transport_(std::move(transport)) {}
  bool init();

  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Virtqueue> queue_;
  bool broken_ = false;
  bool posted_ = false;  // the buffer is the device's until it is used
  // The device writes here (identity-mapped heap memory on kvm).
  uint8_t buffer_[max_request] = {};
};

// The first virtio-rng device of the machine (PCI, else virtio-mmio named on
// `cmdline` or found in microvm's window); nullptr when there is none. Image
// only (rng_discovery.cpp).
std::unique_ptr<Rng> find_rng_device(std::string_view cmdline);

}  // namespace keel::drivers::virtio
