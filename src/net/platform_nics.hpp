// The platform's own NICs: virtio-net in an image (src/drivers/virtio/
// register.cpp), TAP devices in a Linux process (src/platform/linux/tap.cpp).
// net::Interfaces calls this on first use. It is a plain call, not a
// registration from a static constructor, so an image whose service never
// asks for an interface links no driver at all (--gc-sections drops them).
#pragma once

namespace keel::net {

// Finds the platform's network devices and hands each to
// ::net::Interfaces::register_nic(), in a stable order.
void probe_platform_nics();

}  // namespace keel::net
