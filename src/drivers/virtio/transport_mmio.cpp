#include "transport_mmio.hpp"

#include <cstdio>

#include "arch/x86_64/apic.hpp"
#include "arch/x86_64/paging.hpp"

namespace keel::drivers::virtio {
namespace {

// Register offsets (4.2.2; legacy-only ones from 4.2.4).
constexpr uint32_t reg_magic = 0x000;
constexpr uint32_t reg_version = 0x004;
constexpr uint32_t reg_device_id = 0x008;
constexpr uint32_t reg_device_features = 0x010;
constexpr uint32_t reg_device_features_sel = 0x014;
constexpr uint32_t reg_driver_features = 0x020;
constexpr uint32_t reg_driver_features_sel = 0x024;
constexpr uint32_t reg_guest_page_size = 0x028;  // legacy
constexpr uint32_t reg_queue_sel = 0x030;
constexpr uint32_t reg_queue_num_max = 0x034;
constexpr uint32_t reg_queue_num = 0x038;
constexpr uint32_t reg_queue_align = 0x03c;  // legacy
constexpr uint32_t reg_queue_pfn = 0x040;    // legacy
constexpr uint32_t reg_queue_ready = 0x044;
constexpr uint32_t reg_queue_notify = 0x050;
constexpr uint32_t reg_interrupt_status = 0x060;
constexpr uint32_t reg_interrupt_ack = 0x064;
constexpr uint32_t reg_status = 0x070;
constexpr uint32_t reg_queue_desc_low = 0x080;
constexpr uint32_t reg_queue_desc_high = 0x084;
constexpr uint32_t reg_queue_driver_low = 0x090;
constexpr uint32_t reg_queue_driver_high = 0x094;
constexpr uint32_t reg_queue_device_low = 0x0a0;
constexpr uint32_t reg_queue_device_high = 0x0a4;
constexpr uint32_t reg_config = 0x100;

constexpr uint32_t magic_virt = 0x74726976;  // "virt"
constexpr uint32_t page_size = 4096;
constexpr uint32_t window_size = 0x200;

volatile uint32_t* registers(uint64_t base) { return reinterpret_cast<volatile uint32_t*>(base); }

}  // namespace

uint32_t MmioTransport::device_id_at(uint64_t base) {
  if (base == 0 || base + window_size > arch::paging::mapped_limit) return 0;
  volatile uint32_t* r = registers(base);
  if (r[reg_magic / 4] != magic_virt) return 0;
  uint32_t version = r[reg_version / 4];
  if (version != 1 && version != 2) return 0;
  return r[reg_device_id / 4];
}

std::unique_ptr<MmioTransport> MmioTransport::probe(uint64_t base, uint32_t gsi) {
  if (device_id_at(base) == 0) return nullptr;
  uint32_t version = registers(base)[reg_version / 4];
  return std::unique_ptr<MmioTransport>(new MmioTransport(base, gsi, version));
}

uint32_t MmioTransport::read(uint32_t reg) const { return registers(base_)[reg / 4]; }
void MmioTransport::write(uint32_t reg, uint32_t value) { registers(base_)[reg / 4] = value; }

uint32_t MmioTransport::device_id() const { return read(reg_device_id); }

std::string MmioTransport::describe() const {
  char text[64];
  std::snprintf(text, sizeof text, "mmio %#llx irq %u %s", static_cast<unsigned long long>(base_),
                gsi_, legacy() ? "legacy" : "v2");
  return text;
}

void MmioTransport::reset() { write(reg_status, 0); }
uint8_t MmioTransport::status() { return uint8_t(read(reg_status)); }
void MmioTransport::set_status(uint8_t bits) { write(reg_status, bits); }

uint64_t MmioTransport::device_features() {
  write(reg_device_features_sel, 0);
  uint64_t low = read(reg_device_features);
  if (legacy()) return low;  // legacy devices have 32 feature bits
  write(reg_device_features_sel, 1);
  return low | uint64_t(read(reg_device_features)) << 32;
}

void MmioTransport::set_driver_features(uint64_t features) {
  write(reg_driver_features_sel, 0);
  write(reg_driver_features, uint32_t(features));
  if (legacy()) return;
  write(reg_driver_features_sel, 1);
  write(reg_driver_features, uint32_t(features >> 32));
}

uint16_t MmioTransport::queue_max_size(uint16_t index) {
  write(reg_queue_sel, index);
  // A queue already in use is not "available" (4.2.3.2): treat it as absent.
  if (read(legacy() ? reg_queue_pfn : reg_queue_ready) != 0) return 0;
  uint32_t max = read(reg_queue_num_max);
  return max > Virtqueue::max_size ? Virtqueue::max_size : uint16_t(max);
}

bool MmioTransport::setup_queue(const Virtqueue& queue) {
  write(reg_queue_sel, queue.index());
  write(reg_queue_num, queue.size());
  if (legacy()) {
    // 4.2.4: one block, located by page frame number.
    write(reg_guest_page_size, page_size);
    write(reg_queue_align, Virtqueue::legacy_alignment);
    uint64_t pfn = queue.base_address() / page_size;
    if (pfn > UINT32_MAX) return false;
    write(reg_queue_pfn, uint32_t(pfn));
    return true;
  }
  write(reg_queue_desc_low, uint32_t(queue.descriptor_address()));
  write(reg_queue_desc_high, uint32_t(queue.descriptor_address() >> 32));
  write(reg_queue_driver_low, uint32_t(queue.available_address()));
  write(reg_queue_driver_high, uint32_t(queue.available_address() >> 32));
  write(reg_queue_device_low, uint32_t(queue.used_address()));
  write(reg_queue_device_high, uint32_t(queue.used_address() >> 32));
  write(reg_queue_ready, 1);
  return read(reg_queue_ready) == 1;
}

void MmioTransport::notify(uint16_t queue_index) { write(reg_queue_notify, queue_index); }

uint8_t MmioTransport::config8(uint32_t offset) {
  return reinterpret_cast<volatile uint8_t*>(base_ + reg_config)[offset];
}

bool MmioTransport::setup_interrupt(int event) {
  // The line is held high until acknowledged; the handler acknowledges
  // before it drains, so edge triggering never misses a completion and a
  // level-triggered line cannot storm while the event waits in the loop.
  return arch::apic::route_irq(gsi_, event, arch::apic::Trigger::edge);
}

void MmioTransport::acknowledge_interrupt() {
  uint32_t pending = read(reg_interrupt_status);
  if (pending) write(reg_interrupt_ack, pending);
}

}  // namespace keel::drivers::virtio
