// The image's stack (net::stack()): the platform's NICs, the OS's clock and
// timers, and the configuration from the embedded JSON and the command line.
// Everything else in src/net takes time and configuration as arguments.
#include <cstdio>
#include <net/nics.hpp>
#include <net/stack.hpp>
#include <net/syslog.hpp>
#include <os>
#include <string>

#include "kernel/kernel.hpp"
#include "platform_nics.hpp"

// The embedded config: a service's build defines it with keel_net_config()
// (cmake/keel-net-config.cmake); this weak default means "none". The same
// build refers to the JSON reader (config_json.cpp), so only images that
// embed JSON carry it. Not const: a const weak object may be folded to its
// default by the compiler.
extern "C" {
__attribute__((weak)) const char* keel_net_config_json = "";
__attribute__((weak)) extern const net::JsonConfigParser keel_net_json_parser;
}

namespace net {
namespace {

// os::uptime() and one re-armable os::Timers timer for the stack's wake-up.
class OsClock final : public Clock {
 public:
  OsClock() : timer_(os::Timers::create([this](os::Timers::id_t) { wake(); })) {}
  ~OsClock() override { os::Timers::stop(timer_); }

  uint64_t now_ns() const override { return uint64_t(os::uptime().count()); }
  void wake_at(uint64_t deadline_ns) override {
    if (deadline_ns == never) {
      os::Timers::disarm(timer_);
      return;
    }
    uint64_t now = now_ns();
    os::Timers::arm(timer_, std::chrono::nanoseconds(deadline_ns > now ? deadline_ns - now : 0));
  }

 private:
  os::Timers::id_t timer_;
};

struct System {
  std::vector<NicProbe> probes;
  std::vector<std::unique_ptr<Nic>> nics;
  std::unique_ptr<OsClock> clock;
  std::unique_ptr<Stack> stack;  // last: destroyed before the NICs it uses
};

// Function-local: tests may register probes from static constructors.
System& system() {
  static System s;
  return s;
}

// A bad network setting is a mistake in how the image was started, not a
// bug in it: one line and status 78, as with no NIC (decision 0111).
[[noreturn]] void config_panic(const std::string& why) {
  keel::kernel::stop_unconfigured("net config: " + why);
}

// A network service started without a NIC: nothing can reach it, and the
// first stack.interface(0) would throw std::out_of_range. Say how to give
// it one instead (docs/guide.md, "Networking").
[[noreturn]] void stop_without_nic() {
  if (os::platform() == "linux") {
    keel::kernel::stop_unconfigured(
        "no network interface: give the process a TAP device (tap0=NAME; "
        "keel boot --platform linux --tap NAME)");
  }
  keel::kernel::stop_unconfigured(
      "no network interface: boot with one (keel run -p HOSTPORT:GUESTPORT, "
      "keel boot --tap TAP, or QEMU -netdev ... -device virtio-net-device)");
}

// The embedded JSON (keel_net_config() in cmake), then os::args().
ConfigError load_config(Config& config) {
  if (&keel_net_json_parser != nullptr && keel_net_config_json) {
    if (auto e = keel_net_json_parser(keel_net_config_json, config); !e.empty()) return e;
  }
  return apply_cmdline(os::args(), config);
}

// The interface on whose subnet `gateway` lies: for IPv4 the address it has
// now, for IPv6 the static prefix its settings give (the address itself is
// still under duplicate address detection).
InterfaceId interface_of(Stack& stack, const Config& config, const Address& gateway) {
  InterfaceId found = no_interface;
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    Interface& candidate = stack.interface(InterfaceId(i));
    InterfaceConfig c = config.interface(i);
    ip4::Addr mask = candidate.netmask();
    bool holds = gateway.is_ip6()
                     ? !c.address6.is_any() && Route6::network(gateway.ip6(), c.prefix6) ==
                                                   Route6::network(c.address6, c.prefix6)
                     : candidate.is_configured() && (gateway.ip4().value & mask.value) ==
                                                        (candidate.address().value & mask.value);
    if (holds) found = InterfaceId(i);
  }
  return found;
}

// A route without an interface goes through the interface on whose subnet
// its gateway lies.
void add_route(Stack& stack, const Config& config, const RouteConfig& r) {
  std::string text = r.destination.to_string() + "/" + std::to_string(r.prefix_len);
  InterfaceId interface =
      r.interface >= 0 ? InterfaceId(r.interface) : interface_of(stack, config, r.gateway);
  if (interface == no_interface)
    config_panic("route " + text + ": no interface has " + r.gateway.to_string() +
                 " on its subnet yet (for a DHCP interface, name it: route=" + text + "," +
                 r.gateway.to_string() + ",N)");
  Status added = r.destination.is_ip6()
                     ? stack.routes6().add(Route6{.destination = r.destination.ip6(),
                                                  .prefix_len = r.prefix_len,
                                                  .gateway = r.gateway.ip6(),
                                                  .interface = interface,
                                                  .metric = r.metric,
                                                  .source = {}})
                     : stack.routes().add(Route{.destination = r.destination.ip4(),
                                                .prefix_len = r.prefix_len,
                                                .gateway = r.gateway.ip4(),
                                                .interface = interface,
                                                .metric = r.metric,
                                                .source = {}});
  if (added != Status::ok)
    config_panic("route " + text + ": no interface " + std::to_string(r.interface));
}

}  // namespace

std::size_t register_nic(std::unique_ptr<Nic> nic) {
  System& s = system();
  s.nics.push_back(std::move(nic));
  return s.nics.size() - 1;
}

void register_nic_probe(NicProbe probe) { system().probes.push_back(probe); }

Stack& stack() {
  System& s = system();
  if (s.stack) return *s.stack;
  Config config;
  if (ConfigError e = load_config(config); !e.empty()) config_panic(e);
  probe_platform_nics(config.stack);
  for (std::size_t i = 0; i < s.probes.size(); ++i) s.probes[i]();
  if (s.nics.empty()) stop_without_nic();
  if (config.stack.total_memory == 0) config.stack.total_memory = os::total_memory();
  s.clock = std::make_unique<OsClock>();
  s.stack = std::make_unique<Stack>(*s.clock, config.stack);
  for (auto& nic : s.nics) s.stack->add_interface(*nic);
  for (std::size_t i = 0; i < config.interfaces.size(); ++i) {
    if (i >= s.nics.size()) {
      if (config.interfaces[i].mode != InterfaceConfig::Mode::none)
        std::printf("net config: interface %zu is configured, but there are %zu NICs\n", i,
                    s.nics.size());
      continue;
    }
    s.stack->interface(InterfaceId(i)).apply(config.interfaces[i]);
  }
  for (const RouteConfig& route : config.routes) add_route(*s.stack, config, route);
  if (std::string e = syslog::start(*s.stack, os::args()); !e.empty()) config_panic(e);
  return *s.stack;
}

}  // namespace net
