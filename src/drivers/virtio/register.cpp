// Hooks virtio-net into net::Interfaces: called the first time a service
// asks for an interface, before any stack is built on a NIC.
#include <net/interfaces.hpp>

#include "discovery.hpp"
#include "net/platform_nics.hpp"

void keel::net::probe_platform_nics() {
  for (auto& nic : keel::drivers::virtio::find_net_devices()) {
    ::net::Interfaces::register_nic(std::move(nic));
  }
}
