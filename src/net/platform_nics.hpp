// The platform's own NICs: virtio-net in an image (src/drivers/virtio/
// register.cpp), TAP devices in a Linux process (src/platform/linux/tap.cpp).
// net::stack() calls this when it is first built. It is a plain call, not a
// registration from a static constructor, so an image whose service never
// uses the network links no driver at all (it is never pulled from the
// archive).
#pragma once
#include <net/config.hpp>

namespace net {

// Finds the platform's network devices and hands each to register_nic(),
// in a stable order. `config` says which offloads to ask the devices for
// (segmentation_offload: coalesced receive too, decision 0093).
void probe_platform_nics(const StackConfig& config);

}  // namespace net
