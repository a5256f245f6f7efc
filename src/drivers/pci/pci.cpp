#include "pci.hpp"

#include "arch/x86_64/cpu.hpp"

namespace keel::drivers::pci {
namespace {

// Configuration mechanism #1 (PCI 3.0, 3.2.2.3.2).
constexpr uint16_t config_address_port = 0xcf8;
constexpr uint16_t config_data_port = 0xcfc;
constexpr uint32_t config_enable = 1u << 31;

constexpr uint16_t no_device = 0xffff;
constexpr uint8_t header_type_mask = 0x7f;
constexpr uint8_t header_multifunction = 0x80;
constexpr uint8_t header_bridge = 0x01;
constexpr uint8_t reg_secondary_bus = 0x19;  // type 1 header
constexpr int max_slots = 32, max_functions = 8, bar_count = 6;
constexpr int max_capabilities = 48;  // 192 bytes / 4: a longer list loops

constexpr uint32_t bar_io = 1 << 0;
constexpr uint32_t bar_type_mask = 0x6;
constexpr uint32_t bar_type_64 = 0x4;
constexpr uint32_t bar_io_mask = ~0x3u;
constexpr uint32_t bar_memory_mask = ~0xfu;

void select(Address a, uint8_t offset) {
  arch::outl(config_address_port, config_enable | uint32_t(a.bus) << 16 | uint32_t(a.slot) << 11 |
                                      uint32_t(a.function) << 8 | (offset & 0xfc));
}

void scan_bus(uint8_t bus, std::vector<Device>& out, int depth);

void scan_function(Address a, std::vector<Device>& out, int depth) {
  uint16_t vendor = read16(a, reg_vendor_id);
  if (vendor == no_device) return;
  Device d;
  d.address = a;
  d.vendor_id = vendor;
  d.device_id = read16(a, reg_device_id);
  uint32_t class_reg = read32(a, reg_class);
  d.class_code = uint8_t(class_reg >> 24);
  d.subclass = uint8_t(class_reg >> 16);
  uint8_t type = read8(a, reg_header_type) & header_type_mask;
  if (type == header_bridge) {
    // Bridges the firmware set up: follow them (depth-bounded against loops).
    uint8_t secondary = read8(a, reg_secondary_bus);
    if (secondary != 0 && secondary != a.bus && depth < 8) scan_bus(secondary, out, depth + 1);
  } else {
    d.subsystem_id = read16(a, reg_subsystem_id);
  }
  out.push_back(d);
}

void scan_bus(uint8_t bus, std::vector<Device>& out, int depth) {
  for (int slot = 0; slot < max_slots; ++slot) {
    Address a{bus, uint8_t(slot), 0};
    if (read16(a, reg_vendor_id) == no_device) continue;
    bool multi = read8(a, reg_header_type) & header_multifunction;
    for (int f = 0; f < (multi ? max_functions : 1); ++f) {
      scan_function(Address{bus, uint8_t(slot), uint8_t(f)}, out, depth);
    }
  }
}

}  // namespace

uint32_t read32(Address a, uint8_t offset) {
  select(a, offset);
  return arch::inl(config_data_port);
}
uint16_t read16(Address a, uint8_t offset) {
  select(a, offset);
  return arch::inw(config_data_port + (offset & 2));
}
uint8_t read8(Address a, uint8_t offset) {
  select(a, offset);
  return arch::inb(config_data_port + (offset & 3));
}
void write32(Address a, uint8_t offset, uint32_t value) {
  select(a, offset);
  arch::outl(config_data_port, value);
}
void write16(Address a, uint8_t offset, uint16_t value) {
  select(a, offset);
  arch::outw(config_data_port + (offset & 2), value);
}

Bar Device::bar(int index) const {
  Bar bar;
  if (index < 0 || index >= bar_count) return bar;
  uint8_t reg = uint8_t(reg_bar0 + 4 * index);
  uint32_t original = read32(address, reg);
  uint16_t command = read16(address, reg_command);
  write16(address, reg_command, command & ~(command_io | command_memory));
  write32(address, reg, 0xffffffff);
  uint32_t probed = read32(address, reg);
  write32(address, reg, original);
  if (original & bar_io) {
    uint32_t mask = probed & bar_io_mask & 0xffff;
    if (mask != 0) {
      bar.kind = Bar::Kind::io;
      bar.address = original & bar_io_mask;
      bar.size = (~mask + 1) & 0xffff;
    }
  } else if (probed & bar_memory_mask) {
    bar.kind = Bar::Kind::memory;
    uint64_t mask = probed & bar_memory_mask;
    bar.address = original & bar_memory_mask;
    if ((original & bar_type_mask) == bar_type_64 && index + 1 < bar_count) {
      uint8_t high_reg = uint8_t(reg + 4);
      uint32_t high = read32(address, high_reg);
      write32(address, high_reg, 0xffffffff);
      uint32_t high_probed = read32(address, high_reg);
      write32(address, high_reg, high);
      bar.is_64bit = true;
      bar.address |= uint64_t(high) << 32;
      mask |= uint64_t(high_probed) << 32;
    } else {
      mask |= 0xffffffff00000000ull;
    }
    bar.size = ~mask + 1;
  }
  write16(address, reg_command, command);
  return bar;
}

std::vector<uint8_t> Device::capabilities(uint8_t id) const {
  std::vector<uint8_t> found;
  if (!(read16(address, reg_status) & status_capabilities)) return found;
  uint8_t offset = read8(address, reg_capabilities) & 0xfc;
  for (int i = 0; i < max_capabilities && offset >= 0x40; ++i) {
    if (read8(address, offset) == id) found.push_back(offset);
    offset = read8(address, offset + 1) & 0xfc;
  }
  return found;
}

void Device::enable(uint16_t command_bits) const {
  write16(address, reg_command, read16(address, reg_command) | command_bits);
}

// A host bridge with mechanism #1 keeps what is written to its address
// port (the check Linux's pci_check_type1 makes). Without one (microvm),
// scanning 32 slots would cost 64 port accesses, each a VM exit.
bool config_mechanism_present() {
  uint32_t saved = arch::inl(config_address_port);
  arch::outl(config_address_port, config_enable);
  bool present = arch::inl(config_address_port) == config_enable;
  arch::outl(config_address_port, saved);
  return present;
}

std::vector<Device> enumerate() {
  std::vector<Device> devices;
  if (config_mechanism_present()) scan_bus(0, devices, 0);
  return devices;
}

}  // namespace keel::drivers::pci
