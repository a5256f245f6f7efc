#include "discovery.hpp"

#include <algorithm>
#include <cstdio>
#include <os>

#include "drivers/pci/pci.hpp"
#include "transport_mmio.hpp"
#include "transport_pci.hpp"

namespace keel::drivers::virtio {
namespace {

// QEMU's -M microvm (hw/i386/microvm.c): transports every 512 bytes from
// 0xfeb00000; 24 of them on GSIs 24.. of the second I/O APIC when ACPI is
// on (the default), else 8 on GSIs 16.. (ACPI, ioapic2=off) or 5.. (no
// ACPI, where QEMU names them on the command line anyway).
constexpr uint64_t microvm_window = 0xfeb00000;
constexpr uint64_t microvm_stride = 0x200;
constexpr int microvm_max_transports = 24;
constexpr int microvm_small_layout = 8;
constexpr uint32_t microvm_gsi_base_ioapic2 = 24;
constexpr uint32_t microvm_gsi_base_acpi = 16;
constexpr uint32_t mmio_magic = 0x74726976;  // "virt"

}  // namespace

std::vector<MmioLocation> probe_microvm_window() {
  int transports = 0;
  for (; transports < microvm_max_transports; ++transports) {
    auto* magic =
        reinterpret_cast<volatile uint32_t*>(microvm_window + transports * microvm_stride);
    if (*magic != mmio_magic) break;
  }
  std::vector<MmioLocation> found;
  if (transports == 0) return found;
  uint32_t gsi_base =
      transports > microvm_small_layout ? microvm_gsi_base_ioapic2 : microvm_gsi_base_acpi;
  for (int i = 0; i < transports; ++i) {
    uint64_t base = microvm_window + uint64_t(i) * microvm_stride;
    if (MmioTransport::device_id_at(base) != 0) {
      found.push_back({base, microvm_stride, gsi_base + uint32_t(i)});
    }
  }
  return found;
}

namespace {

void add_mmio_nets(std::vector<MmioLocation> locations, Net::Options options,
                   std::vector<std::unique_ptr<Net>>& out) {
  // QEMU fills transports from the top of the window down, in command-line
  // order: the highest base is the first -device.
  std::sort(locations.begin(), locations.end(),
            [](const MmioLocation& a, const MmioLocation& b) { return a.base > b.base; });
  for (const MmioLocation& l : locations) {
    auto transport = MmioTransport::probe(l.base, l.gsi);
    if (!transport || transport->device_id() != device_net) continue;
    if (auto nic = Net::create(std::move(transport), int(out.size()), options))
      out.push_back(std::move(nic));
  }
}

}  // namespace

std::vector<std::unique_ptr<Net>> find_net_devices(Net::Options options) {
  std::vector<std::unique_ptr<Net>> nics;
  auto pci_devices = pci::enumerate();
  for (const pci::Device& d : pci_devices) {
    if (pci_device_type(d) != device_net) continue;
    auto transport = PciTransport::probe(d);
    if (!transport) {
      std::printf("virtio-net at pci %02x:%02x.%x: no usable interface\n", d.address.bus,
                  d.address.slot, d.address.function);
      continue;
    }
    if (auto nic = Net::create(std::move(transport), int(nics.size()), options))
      nics.push_back(std::move(nic));
  }
  auto named = parse_mmio_arguments(os::cmdline());
  if (!named.empty()) {
    add_mmio_nets(std::move(named), options, nics);
  } else if (pci_devices.empty()) {
    // No PCI at all: microvm (Firecracker always names its devices). The
    // window is not probed on pc/q35, where a BAR could sit there.
    add_mmio_nets(probe_microvm_window(), options, nics);
  }
  return nics;
}

}  // namespace keel::drivers::virtio
