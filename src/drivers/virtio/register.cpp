// Hooks virtio-net into net::Interfaces: the probe runs the first time a
// service asks for an interface, before any stack is built on a NIC.
#include <net/interfaces.hpp>

#include "discovery.hpp"

namespace keel::drivers::virtio {
namespace {

void probe_net_devices() {
  for (auto& nic : find_net_devices()) ::net::Interfaces::register_nic(std::move(nic));
}

[[maybe_unused]] const bool registered =
    (::net::Interfaces::register_probe(probe_net_devices), true);

}  // namespace
}  // namespace keel::drivers::virtio
