// Hooks virtio-net into the stack: called when the image's stack is first
// built (net::stack()), before any interface exists.
#include <net/nics.hpp>

#include "discovery.hpp"
#include "net/platform_nics.hpp"

void net::probe_platform_nics() {
  for (auto& nic : keel::drivers::virtio::find_net_devices()) net::register_nic(std::move(nic));
}
