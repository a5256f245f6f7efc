// virtio over PCI (virtio 1.1, 4.1): the modern interface found through
// vendor capabilities in memory BARs, and the legacy (0.9.5) interface in
// I/O BAR 0 when there are no usable capabilities. Interrupts by MSI-X
// (one vector for all queues) or else INTx through the I/O APIC.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include "drivers/pci/msix.hpp"
#include "drivers/pci/pci.hpp"
#include "transport.hpp"

namespace keel::drivers::virtio {

inline constexpr uint16_t pci_vendor_virtio = 0x1af4;

// The virtio device type of a PCI function, 0 when it is not virtio (4.1.2.1).
uint32_t pci_device_type(const pci::Device& device);

class PciTransport final : public Transport {
 public:
  // nullptr when neither interface is usable (e.g. BARs beyond the
  // identity map and no I/O BAR).
  static std::unique_ptr<PciTransport> probe(const pci::Device& device);

  std::string describe() const override;
  bool legacy() const override { return io_base_ != 0; }
  void reset() override;
  uint8_t status() override;
  void set_status(uint8_t bits) override;
  uint64_t device_features() override;
  void set_driver_features(uint64_t features) override;
  uint16_t queue_max_size(uint16_t index) override;
  bool queue_size_fixed() const override { return legacy(); }
  bool setup_queue(const Virtqueue& queue) override;
  void notify(uint16_t queue_index) override;
  uint8_t config8(uint32_t offset) override;
  bool setup_interrupt(int event) override;
  void acknowledge_interrupt() override;

 private:
  explicit PciTransport(const pci::Device& device) : device_(device) {}
  bool find_modern();

  pci::Device device_;
  // Modern: pointers into the BARs' identity-mapped MMIO.
  volatile uint8_t* common_ = nullptr;
  volatile uint8_t* notify_base_ = nullptr;
  uint32_t notify_multiplier_ = 0;
  uint32_t notify_length_ = 0;               // of the notify structure, from its capability
  static constexpr uint16_t max_queues = 8;  // virtio-net uses 2 (3 with a control queue)
  uint32_t notify_offset_[max_queues] = {};
  volatile uint8_t* isr_ = nullptr;
  volatile uint8_t* device_config_ = nullptr;
  // Legacy: the I/O port base of BAR 0.
  uint16_t io_base_ = 0;

  std::optional<pci::Msix> msix_;
  bool msix_enabled_ = false;
  uint8_t intx_line_ = 0;
};

}  // namespace keel::drivers::virtio
