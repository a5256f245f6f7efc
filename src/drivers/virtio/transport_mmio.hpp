// virtio over memory-mapped registers (virtio 1.1, 4.2): version 2, and the
// legacy version 1 that QEMU still offers by default (virtio-mmio's
// force-legacy=on) on -M microvm.
#pragma once
#include <cstdint>
#include <memory>

#include "transport.hpp"

namespace keel::drivers::virtio {

class MmioTransport final : public Transport {
 public:
  // The device at `base` with line interrupt `gsi`; nullptr when there is no
  // virtio device there (wrong magic, unknown version, or device id 0: an
  // empty slot).
  static std::unique_ptr<MmioTransport> probe(uint64_t base, uint32_t gsi);
  // The device id at `base`, 0 for none: for discovery without a probe.
  static uint32_t device_id_at(uint64_t base);

  uint32_t device_id() const;
  uint64_t base() const { return base_; }

  std::string describe() const override;
  bool legacy() const override { return version_ == 1; }
  void reset() override;
  uint8_t status() override;
  void set_status(uint8_t bits) override;
  uint64_t device_features() override;
  void set_driver_features(uint64_t features) override;
  uint16_t queue_max_size(uint16_t index) override;
  bool setup_queue(const Virtqueue& queue) override;
  void notify(uint16_t queue_index) override;
  uint8_t config8(uint32_t offset) override;
  bool setup_interrupt(int event) override;
  void acknowledge_interrupt() override;

 private:
  MmioTransport(uint64_t base, uint32_t gsi, uint32_t version)
      : base_(base), gsi_(gsi), version_(version) {}
  uint32_t read(uint32_t reg) const;
  void write(uint32_t reg, uint32_t value);

  uint64_t base_;
  uint32_t gsi_;
  uint32_t version_;
};

}  // namespace keel::drivers::virtio
