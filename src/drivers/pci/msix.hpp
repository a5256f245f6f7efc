// MSI-X (PCI 3.0, 6.8.2): a table of message address/data pairs in a memory
// BAR. Keel points every entry it uses at local APIC 0 with the vector of an
// os::Events event, so a device interrupt only marks that event pending.
#pragma once
#include <cstdint>
#include <optional>

#include "pci.hpp"

namespace keel::drivers::pci {

class Msix {
 public:
  // Finds the capability and maps the table; nullopt without MSI-X or when
  // the table lies outside the identity-mapped memory.
  static std::optional<Msix> find(const Device& device);

  uint16_t table_size() const { return table_size_; }
  // Entry `index` raises event `event` (vector 32 + event) on APIC 0.
  bool route(uint16_t index, int event);
  // Sets the enable bit (and clears the function mask).
  void enable();

 private:
  Device device_;
  uint8_t capability_ = 0;
  uint16_t table_size_ = 0;
  volatile uint32_t* table_ = nullptr;
};

}  // namespace keel::drivers::pci
