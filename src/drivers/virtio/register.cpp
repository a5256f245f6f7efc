// Hooks virtio-net into the stack: called when the image's stack is first
// built (net::stack()), before any interface exists.
#include <net/nics.hpp>

#include "discovery.hpp"
#include "net/platform_nics.hpp"

void net::probe_platform_nics(const net::StackConfig& config) {
  keel::drivers::virtio::Net::Options options{.receive_segmentation = config.segmentation_offload};
  for (auto& nic : keel::drivers::virtio::find_net_devices(options))
    net::register_nic(std::move(nic));
}
