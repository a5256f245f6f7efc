#include "msix.hpp"

#include <kernel/events.hpp>

#include "arch/x86_64/apic.hpp"
#include "arch/x86_64/paging.hpp"

namespace keel::drivers::pci {
namespace {

// MSI-X capability layout (PCI 3.0, 6.8.2.3 .. 6.8.2.5).
constexpr uint8_t msix_control = 2;
constexpr uint8_t msix_table = 4;
constexpr uint16_t control_table_size_mask = 0x7ff;
constexpr uint16_t control_function_mask = 1 << 14;
constexpr uint16_t control_enable = 1 << 15;
constexpr uint32_t table_bir_mask = 0x7;
constexpr uint32_t entry_words = 4;  // address low, address high, data, vector control
constexpr uint32_t vector_control_masked = 1;

// The local APIC's message address for destination APIC 0, fixed delivery
// (Intel SDM vol. 3, 10.11.1).
constexpr uint32_t apic_message_address = 0xfee00000;

}  // namespace

std::optional<Msix> Msix::find(const Device& device) {
  auto caps = device.capabilities(cap_msix);
  if (caps.empty()) return std::nullopt;
  Msix m;
  m.device_ = device;
  m.capability_ = caps.front();
  m.table_size_ = uint16_t(
      (read16(device.address, m.capability_ + msix_control) & control_table_size_mask) + 1);
  uint32_t table = read32(device.address, m.capability_ + msix_table);
  Bar bar = device.bar(int(table & table_bir_mask));
  uint64_t offset = table & ~table_bir_mask;
  uint64_t table_bytes = uint64_t(m.table_size_) * entry_words * 4;
  uint64_t end = bar.address + offset + table_bytes;
  // The table must lie inside its BAR and inside the identity map.
  if (bar.kind != Bar::Kind::memory || bar.address == 0 || offset + table_bytes > bar.size ||
      end > arch::paging::mapped_limit) {
    return std::nullopt;
  }
  m.table_ = reinterpret_cast<volatile uint32_t*>(bar.address + offset);
  device.enable(command_memory);
  return m;
}

bool Msix::route(uint16_t index, int event) {
  if (index >= table_size_ || event < 0 || event >= os::Events::max_events) return false;
  volatile uint32_t* entry = table_ + index * entry_words;
  entry[3] = vector_control_masked;
  entry[0] = apic_message_address;
  entry[1] = 0;
  entry[2] = arch::apic::first_event_vector + uint32_t(event);
  entry[3] = 0;
  return true;
}

void Msix::enable() {
  uint8_t reg = capability_ + msix_control;
  uint16_t control = read16(device_.address, reg);
  write16(device_.address, reg, uint16_t((control | control_enable) & ~control_function_mask));
}

}  // namespace keel::drivers::pci
