// The platform's NICs, found once, when the image's stack is first built
// (net::stack()): src/net/platform_nics.hpp finds virtio-net devices in an
// image, TAP devices in a Linux process. It is a plain call, not a static
// registration, so an image whose service never uses the network links no
// driver. Tests may add probes of their own.
#pragma once
#include <cstddef>
#include <memory>
#include <net/nic.hpp>
#include <vector>

namespace net {

using NicProbe = void (*)();

// Drivers: hand over a NIC; returns its number (its interface id).
std::size_t register_nic(std::unique_ptr<Nic> nic);
// A function that finds devices and calls register_nic(), in a stable order
// (so interface numbers are stable across boots).
void register_nic_probe(NicProbe probe);

}  // namespace net
