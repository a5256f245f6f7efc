// Finding virtio devices: on -M microvm (and Firecracker) virtio-mmio
// transports named by `virtio_mmio.device=<size>@<base>:<irq>` kernel
// arguments, or else found by probing microvm's transport window; on
// pc/q35, PCI enumeration.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "net.hpp"

namespace keel::drivers::virtio {

struct MmioLocation {
  uint64_t base = 0;
  uint64_t size = 0;
  uint32_t gsi = 0;
};

// Parses every virtio_mmio.device= argument (Linux's syntax:
// <size>[KMG]@<base>:<irq>[:<id>]); malformed ones are skipped.
std::vector<MmioLocation> parse_mmio_arguments(std::string_view cmdline);

// microvm's virtio-mmio transports that hold a device, found by probing its
// window (no PCI, nothing named on the command line).
std::vector<MmioLocation> probe_microvm_window();

// Every usable virtio-net device, in the order QEMU's command line gave
// them (interface numbers are stable across boots), each set up with `options`.
std::vector<std::unique_ptr<Net>> find_net_devices(Net::Options options);

}  // namespace keel::drivers::virtio
