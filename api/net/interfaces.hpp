// The registry of network interfaces: drivers register NICs, services get
// the stack built on each.
//
//   auto& stack = net::Interfaces::get(0);   // net::Inet on the first NIC
//
// The platform's NICs are found the first time a service asks for an
// interface (src/net/platform_nics.hpp), so drivers need no hook before
// Service::start() and an image that never asks links no driver. Tests can
// add probes of their own with register_probe(); a probe finds its devices
// and calls register_nic() for each, in a stable order (so interface numbers
// are stable across boots).
#pragma once
#include <cstddef>
#include <memory>

#include <net/inet.hpp>
#include <net/nic.hpp>

namespace net {

class Interfaces {
 public:
  using Probe = void (*)();

  // Drivers: hand over a NIC. Returns its interface number.
  static std::size_t register_nic(std::unique_ptr<Nic> nic);
  // Drivers: a function that finds devices and calls register_nic().
  static void register_probe(Probe probe);

  // The stack on interface `index`, built (and configured from the embedded
  // config and the command line, see docs/net/README.md) on first use.
  // Panics with a clear message when there is no such interface.
  static Inet& get(std::size_t index);
  // Number of NICs (runs the probes first).
  static std::size_t count();

  // Tests only: forgets every interface and stack (probes stay registered).
  static void clear_for_tests();
};

}  // namespace net
