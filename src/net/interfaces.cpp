// net::Interfaces: NICs registered by drivers, and the stack on each, built
// and configured on first use.
#include <net/interfaces.hpp>

#include <string>
#include <vector>

#include "kernel/kernel.hpp"
#include "platform_nics.hpp"

namespace net {
namespace {

struct Registry {
  std::vector<Interfaces::Probe> probes;
  bool probed = false;
  std::vector<std::unique_ptr<Nic>> nics;
  std::vector<std::unique_ptr<Inet>> stacks;
};

// Function-local: tests may register probes from static constructors.
Registry& registry() {
  static Registry r;
  return r;
}

void probe_once() {
  Registry& r = registry();
  if (r.probed) return;
  r.probed = true;
  keel::net::probe_platform_nics();
  for (std::size_t i = 0; i < r.probes.size(); ++i) r.probes[i]();
}

}  // namespace
}  // namespace net

namespace net {

std::size_t Interfaces::register_nic(std::unique_ptr<Nic> nic) {
  Registry& r = registry();
  r.nics.push_back(std::move(nic));
  r.stacks.emplace_back();
  return r.nics.size() - 1;
}

void Interfaces::register_probe(Probe probe) { registry().probes.push_back(probe); }

std::size_t Interfaces::count() {
  probe_once();
  return registry().nics.size();
}

Inet& Interfaces::get(std::size_t index) {
  probe_once();
  Registry& r = registry();
  if (index >= r.nics.size()) {
    std::string why = "net::Interfaces::get(" + std::to_string(index) + "): no such interface (" +
                      std::to_string(r.nics.size()) + " found)";
    keel::kernel::panic(why);
  }
  if (!r.stacks[index]) {
    Config config;
    if (ConfigError e = load_config(config); !e.empty()) keel::kernel::panic("net config: " + e);
    r.stacks[index] = std::make_unique<Inet>(*r.nics[index], index, config.reassembly);
    r.stacks[index]->apply(config.interface(index));
  }
  return *r.stacks[index];
}

void Interfaces::clear_for_tests() {
  Registry& r = registry();
  r.stacks.clear();
  r.nics.clear();
  r.probed = false;
}

}  // namespace net
