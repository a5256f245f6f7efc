// Finding the virtio-rng device, the way discovery.cpp finds virtio-net:
// PCI first, then virtio-mmio transports named on the command line, or
// microvm's window when there is no PCI at all.
#include <cstdio>

#include "discovery.hpp"
#include "drivers/pci/pci.hpp"
#include "rng.hpp"
#include "transport_mmio.hpp"
#include "transport_pci.hpp"

namespace keel::drivers::virtio {

std::unique_ptr<Rng> find_rng_device(std::string_view cmdline) {
  auto pci_devices = pci::enumerate();
  for (const pci::Device& d : pci_devices) {
    if (pci_device_type(d) != device_entropy) continue;
    if (auto transport = PciTransport::probe(d)) {
      if (auto rng = Rng::create(std::move(transport))) return rng;
    }
  }
  auto locations = parse_mmio_arguments(cmdline);
  if (locations.empty() && pci_devices.empty()) locations = probe_microvm_window();
  for (const MmioLocation& l : locations) {
    auto transport = MmioTransport::probe(l.base, l.gsi);
    if (!transport || transport->device_id() != device_entropy) continue;
    if (auto rng = Rng::create(std::move(transport))) return rng;
  }
  return nullptr;
}

}  // namespace keel::drivers::virtio
