// PCI configuration space through the legacy ports 0xCF8/0xCFC (PCI Local
// Bus 3.0, 3.2.2.3.2), bus enumeration, BARs and capabilities. Enough for
// the devices a VM has: one segment, functions on buses 0..255.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace keel::drivers::pci {

// Configuration header offsets (PCI 3.0, 6.1).
inline constexpr uint8_t reg_vendor_id = 0x00;
inline constexpr uint8_t reg_device_id = 0x02;
inline constexpr uint8_t reg_command = 0x04;
inline constexpr uint8_t reg_status = 0x06;
inline constexpr uint8_t reg_class = 0x08;  // revision, prog-if, subclass, class
inline constexpr uint8_t reg_header_type = 0x0e;
inline constexpr uint8_t reg_bar0 = 0x10;
inline constexpr uint8_t reg_subsystem_id = 0x2e;
inline constexpr uint8_t reg_capabilities = 0x34;
inline constexpr uint8_t reg_interrupt_line = 0x3c;
inline constexpr uint8_t reg_interrupt_pin = 0x3d;

inline constexpr uint16_t command_io = 1 << 0;
inline constexpr uint16_t command_memory = 1 << 1;
inline constexpr uint16_t command_bus_master = 1 << 2;
inline constexpr uint16_t command_intx_disable = 1 << 10;
inline constexpr uint16_t status_capabilities = 1 << 4;

inline constexpr uint8_t cap_msix = 0x11;
inline constexpr uint8_t cap_vendor = 0x09;

struct Address {
  uint8_t bus = 0, slot = 0, function = 0;
};

uint32_t read32(Address a, uint8_t offset);
uint16_t read16(Address a, uint8_t offset);
uint8_t read8(Address a, uint8_t offset);
void write32(Address a, uint8_t offset, uint32_t value);
void write16(Address a, uint8_t offset, uint16_t value);

struct Bar {
  enum class Kind : uint8_t { none, io, memory };
  Kind kind = Kind::none;
  uint64_t address = 0;  // port number for io
  uint64_t size = 0;
  bool is_64bit = false;
};

struct Device {
  Address address;
  uint16_t vendor_id = 0, device_id = 0, subsystem_id = 0;
  uint8_t class_code = 0, subclass = 0;

  // Sizes the BAR by the all-ones probe (PCI 3.0, 6.2.5.1); decoding is off
  // meanwhile. Index 0..5.
  Bar bar(int index) const;
  // Offsets of each capability with `id`, following the list (bounded: a
  // looping list stops after 48 entries).
  std::vector<uint8_t> capabilities(uint8_t id) const;
  void enable(uint16_t command_bits) const;
};

// Every function on every bus that answers.
std::vector<Device> enumerate();

}  // namespace keel::drivers::pci
