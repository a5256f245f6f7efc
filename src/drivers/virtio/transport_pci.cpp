#include "transport_pci.hpp"

#include <cstdio>

#include "arch/x86_64/apic.hpp"
#include "arch/x86_64/cpu.hpp"
#include "arch/x86_64/paging.hpp"

namespace keel::drivers::virtio {
namespace {

// 4.1.2: transitional devices are 0x1000 + (subsystem id = type), modern
// ones 0x1040 + type.
constexpr uint16_t first_transitional_id = 0x1000, last_transitional_id = 0x103f;
constexpr uint16_t first_modern_id = 0x1040, last_modern_id = 0x107f;

// Capability layout (4.1.4).
constexpr uint8_t cap_cfg_type = 3, cap_bar = 4, cap_offset = 8, cap_length = 12;
constexpr uint8_t cap_notify_multiplier = 16;
constexpr uint8_t cfg_common = 1, cfg_notify = 2, cfg_isr = 3, cfg_device = 4;

// Common configuration (4.1.4.3).
constexpr uint32_t common_device_feature_select = 0x00;
constexpr uint32_t common_device_feature = 0x04;
constexpr uint32_t common_driver_feature_select = 0x08;
constexpr uint32_t common_driver_feature = 0x0c;
constexpr uint32_t common_msix_config = 0x10;
constexpr uint32_t common_device_status = 0x14;
constexpr uint32_t common_queue_select = 0x16;
constexpr uint32_t common_queue_size = 0x18;
constexpr uint32_t common_queue_msix_vector = 0x1a;
constexpr uint32_t common_queue_enable = 0x1c;
constexpr uint32_t common_queue_notify_off = 0x1e;
constexpr uint32_t common_queue_desc = 0x20;
constexpr uint32_t common_queue_driver = 0x28;
constexpr uint32_t common_queue_device = 0x30;
constexpr uint16_t no_vector = 0xffff;

// Legacy I/O registers (4.1.4.8).
constexpr uint16_t legacy_device_features = 0x00;
constexpr uint16_t legacy_driver_features = 0x04;
constexpr uint16_t legacy_queue_pfn = 0x08;
constexpr uint16_t legacy_queue_size = 0x0c;
constexpr uint16_t legacy_queue_select = 0x0e;
constexpr uint16_t legacy_queue_notify = 0x10;
constexpr uint16_t legacy_status = 0x12;
constexpr uint16_t legacy_isr = 0x13;
constexpr uint16_t legacy_msix_config = 0x14;  // only while MSI-X is enabled
constexpr uint16_t legacy_msix_queue = 0x16;
constexpr uint16_t legacy_config = 0x14;
constexpr uint16_t legacy_config_msix = 0x18;
constexpr uint32_t legacy_page_shift = 12;

constexpr uint16_t msix_vector = 0;  // one table entry for everything
constexpr uint8_t no_intx_line = 0xff;

template <class T>
T mmio_read(volatile uint8_t* base, uint32_t offset) {
  return *reinterpret_cast<volatile T*>(base + offset);
}
template <class T>
void mmio_write(volatile uint8_t* base, uint32_t offset, T value) {
  *reinterpret_cast<volatile T*>(base + offset) = value;
}

}  // namespace

uint32_t pci_device_type(const pci::Device& d) {
  if (d.vendor_id != pci_vendor_virtio) return 0;
  if (d.device_id >= first_modern_id && d.device_id <= last_modern_id) {
    return d.device_id - first_modern_id;
  }
  if (d.device_id >= first_transitional_id && d.device_id <= last_transitional_id) {
    return d.subsystem_id;
  }
  return 0;
}

std::unique_ptr<PciTransport> PciTransport::probe(const pci::Device& device) {
  if (pci_device_type(device) == 0) return nullptr;
  std::unique_ptr<PciTransport> t(new PciTransport(device));
  if (!t->find_modern()) {
    pci::Bar bar0 = device.bar(0);
    if (bar0.kind != pci::Bar::Kind::io || bar0.address == 0) return nullptr;
    t->io_base_ = uint16_t(bar0.address);
    device.enable(pci::command_io);
  }
  device.enable(pci::command_bus_master);
  return t;
}

bool PciTransport::find_modern() {
  volatile uint8_t* found[5] = {};
  uint32_t multiplier = 0, notify_length = 0;
  for (uint8_t cap : device_.capabilities(pci::cap_vendor)) {
    uint8_t type = pci::read8(device_.address, cap + cap_cfg_type);
    if (type < cfg_common || type > cfg_device || found[type]) continue;  // first of each wins
    pci::Bar bar = device_.bar(pci::read8(device_.address, cap + cap_bar));
    uint32_t offset = pci::read32(device_.address, cap + cap_offset);
    uint32_t length = pci::read32(device_.address, cap + cap_length);
    if (bar.kind != pci::Bar::Kind::memory || bar.address == 0) continue;
    if (uint64_t(offset) + length > bar.size) continue;
    if (bar.address + offset + length > arch::paging::mapped_limit) {
      // FIXME: map BARs above 4 GiB; until then fall back to legacy.
      std::printf("virtio-pci: BAR at %#llx is beyond the identity map\n",
                  static_cast<unsigned long long>(bar.address));
      continue;
    }
    found[type] = reinterpret_cast<volatile uint8_t*>(bar.address + offset);
    if (type == cfg_notify) {
      multiplier = pci::read32(device_.address, cap + cap_notify_multiplier);
      notify_length = length;
    }
  }
  if (!found[cfg_common] || !found[cfg_notify] || !found[cfg_isr] || !found[cfg_device]) {
    return false;
  }
  common_ = found[cfg_common];
  notify_base_ = found[cfg_notify];
  notify_multiplier_ = multiplier;
  notify_length_ = notify_length;
  isr_ = found[cfg_isr];
  device_config_ = found[cfg_device];
  device_.enable(pci::command_memory);
  return true;
}

std::string PciTransport::describe() const {
  char text[64];
  std::snprintf(text, sizeof text, "pci %02x:%02x.%x %s%s", device_.address.bus,
                device_.address.slot, device_.address.function, legacy() ? "legacy" : "modern",
                msix_enabled_ ? " msi-x" : " intx");
  return text;
}

void PciTransport::reset() {
  set_status(0);
  // 4.1.4.3.2: the reset is done when the status reads back 0.
  for (int i = 0; i < 1000000 && status() != 0; ++i) arch::pause();
}

uint8_t PciTransport::status() {
  if (legacy()) return arch::inb(io_base_ + legacy_status);
  return mmio_read<uint8_t>(common_, common_device_status);
}

void PciTransport::set_status(uint8_t bits) {
  if (legacy()) return arch::outb(io_base_ + legacy_status, bits);
  mmio_write<uint8_t>(common_, common_device_status, bits);
}

uint64_t PciTransport::device_features() {
  if (legacy()) return arch::inl(io_base_ + legacy_device_features);
  mmio_write<uint32_t>(common_, common_device_feature_select, 0);
  uint64_t low = mmio_read<uint32_t>(common_, common_device_feature);
  mmio_write<uint32_t>(common_, common_device_feature_select, 1);
  return low | uint64_t(mmio_read<uint32_t>(common_, common_device_feature)) << 32;
}

void PciTransport::set_driver_features(uint64_t features) {
  if (legacy()) return arch::outl(io_base_ + legacy_driver_features, uint32_t(features));
  mmio_write<uint32_t>(common_, common_driver_feature_select, 0);
  mmio_write<uint32_t>(common_, common_driver_feature, uint32_t(features));
  mmio_write<uint32_t>(common_, common_driver_feature_select, 1);
  mmio_write<uint32_t>(common_, common_driver_feature, uint32_t(features >> 32));
}

uint16_t PciTransport::queue_max_size(uint16_t index) {
  if (legacy()) {
    arch::outw(io_base_ + legacy_queue_select, index);
    return arch::inw(io_base_ + legacy_queue_size);
  }
  mmio_write<uint16_t>(common_, common_queue_select, index);
  uint16_t size = mmio_read<uint16_t>(common_, common_queue_size);
  return size > Virtqueue::max_size ? Virtqueue::max_size : size;
}

bool PciTransport::setup_queue(const Virtqueue& queue) {
  if (legacy()) {
    arch::outw(io_base_ + legacy_queue_select, queue.index());
    // Legacy queues have the device's size, fixed (4.1.4.8).
    if (arch::inw(io_base_ + legacy_queue_size) != queue.size()) return false;
    if (msix_enabled_) {
      arch::outw(io_base_ + legacy_msix_queue, msix_vector);
      if (arch::inw(io_base_ + legacy_msix_queue) != msix_vector) return false;
    }
    uint64_t pfn = queue.base_address() >> legacy_page_shift;
    if (pfn > UINT32_MAX) return false;
    arch::outl(io_base_ + legacy_queue_pfn, uint32_t(pfn));
    return true;
  }
  if (queue.index() >= max_queues) return false;
  mmio_write<uint16_t>(common_, common_queue_select, queue.index());
  mmio_write<uint16_t>(common_, common_queue_size, queue.size());
  if (msix_enabled_) {
    mmio_write<uint16_t>(common_, common_queue_msix_vector, msix_vector);
    if (mmio_read<uint16_t>(common_, common_queue_msix_vector) == no_vector) return false;
  }
  mmio_write<uint64_t>(common_, common_queue_desc, queue.descriptor_address());
  mmio_write<uint64_t>(common_, common_queue_driver, queue.available_address());
  mmio_write<uint64_t>(common_, common_queue_device, queue.used_address());
  // Cached: reading it on every kick would cost an MMIO exit each time.
  // A device-provided offset: it must stay inside the notify structure.
  uint64_t offset =
      uint64_t(mmio_read<uint16_t>(common_, common_queue_notify_off)) * notify_multiplier_;
  if (offset + sizeof(uint16_t) > notify_length_) return false;
  notify_offset_[queue.index()] = uint32_t(offset);
  mmio_write<uint16_t>(common_, common_queue_enable, 1);
  return true;
}

void PciTransport::notify(uint16_t queue_index) {
  if (legacy()) return arch::outw(io_base_ + legacy_queue_notify, queue_index);
  if (queue_index >= max_queues) return;
  mmio_write<uint16_t>(notify_base_, notify_offset_[queue_index], queue_index);
}

uint8_t PciTransport::config8(uint32_t offset) {
  if (legacy()) {
    return arch::inb(
        uint16_t(io_base_ + (msix_enabled_ ? legacy_config_msix : legacy_config) + offset));
  }
  return device_config_[offset];
}

bool PciTransport::setup_interrupt(int event) {
  msix_ = pci::Msix::find(device_);
  if (msix_ && msix_->route(msix_vector, event)) {
    msix_->enable();
    msix_enabled_ = true;
    if (legacy()) {
      arch::outw(io_base_ + legacy_msix_config, msix_vector);
    } else {
      mmio_write<uint16_t>(common_, common_msix_config, msix_vector);
    }
    pci::write16(device_.address, pci::reg_command,
                 pci::read16(device_.address, pci::reg_command) | pci::command_intx_disable);
    return true;
  }
  intx_line_ = pci::read8(device_.address, pci::reg_interrupt_line);
  if (intx_line_ == 0 || intx_line_ == no_intx_line) return false;
  // The ISR read in acknowledge_interrupt() lowers the line: edge suffices.
  return arch::apic::route_irq(intx_line_, event, arch::apic::Trigger::edge);
}

void PciTransport::acknowledge_interrupt() {
  if (msix_enabled_) return;
  // Reading the ISR status clears it and de-asserts INTx (4.1.4.5).
  if (legacy()) {
    (void)arch::inb(io_base_ + legacy_isr);
  } else {
    (void)*isr_;
  }
}

}  // namespace keel::drivers::virtio
