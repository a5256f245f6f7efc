// The firewall appliance: routes between its interfaces, tracks connections, translates
// addresses and filters with the rules compiled into the image (rules.fw; CMakeLists.txt) or
// loaded at boot, and takes new rules over its management port while it runs.
//
//   ip=10.0.0.2/24 ip1=10.1.0.2/24     addresses (else the rules' interface declarations)
//   rules=FILE                         a compiled blob to start with (Linux process only)
//   fw_port=PORT fw_key=HEX            the management port and its HMAC key, 32 to 128 hex
//                                      digits (64 advised; rule_updates.hpp)
//   ct_max=N                           flows conntrack holds (default 16384)
//   stats=SECONDS                      print the memory in use and the counters that moved, that
//   often
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <keel/firewall/appliance.hpp>
#include <keel/firewall/embedded_rules.hpp>
#include <keel/firewall/rule_updates.hpp>
#include <memory>
#include <net/stack.hpp>
#include <os>
#include <string>
#include <string_view>
#include <vector>

namespace fw = keel::firewall;

namespace {

// The value of `key=` on the command line, or "".
std::string arg(std::string_view key) {
  for (const std::string& a : os::args())
    if (a.size() > key.size() && a.starts_with(key) && a[key.size()] == '=')
      return a.substr(key.size() + 1);
  return "";
}

uint64_t number(std::string_view key, uint64_t fallback) {
  std::string text = arg(key);
  uint64_t value = fallback;
  if (!text.empty() &&
      std::from_chars(text.data(), text.data() + text.size(), value).ec != std::errc{}) {
    std::printf("firewall: %.*s=%s is not a number\n", int(key.size()), key.data(), text.c_str());
    os::shutdown(2);
  }
  return value;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class Counters>
void print_moved(const char* what, const Counters& counters) {
  std::printf("firewall: %s", what);
  counters.for_each([](std::string_view name, uint64_t value) {
    if (value) std::printf(" %.*s=%llu", int(name.size()), name.data(), (unsigned long long)value);
  });
  std::printf("\n");
}

constexpr size_t kDefaultMaxBlob = size_t(64) << 20;

}  // namespace

void Service::start() {
  net::Stack& stack = net::stack();
  fw::ApplianceConfig config;
  config.conntrack.max_flows = number("ct_max", config.conntrack.max_flows);
  static fw::Appliance firewall(stack, config);
  // The rules compiled in are used where they lie (mapped, never copied; decision 0064); a
  // file's are copied once into place.
  const auto loading = os::uptime();
  fw::LoadStatus status = fw::LoadStatus::ok;
  std::string from = "compiled in";
  if (std::string path = arg("rules"); !path.empty()) {
    status = firewall.replace_rules(read_file(path));
    from = "in " + path;
  } else if (std::span<const uint8_t> blob = fw::embedded_rules(); !blob.empty()) {
    status = firewall.map_rules(blob);
  }
  if (status != fw::LoadStatus::ok) {
    std::printf("firewall: the rules %s do not load: %s\n", from.c_str(), fw::to_string(status));
    os::shutdown(1);
    return;
  }
  const auto loaded_us =
      std::chrono::duration_cast<std::chrono::microseconds>(os::uptime() - loading).count();
  firewall.apply_declarations();
  static std::unique_ptr<fw::RuleUpdates> updates;
  if (uint64_t port = number("fw_port", 0); port) {
    fw::RuleUpdateKey key;
    if (!fw::parse_rule_update_key(arg("fw_key"), key)) {
      std::printf("firewall: fw_port needs fw_key=32 to 128 hex digits\n");
      os::shutdown(2);
      return;
    }
    updates = std::make_unique<fw::RuleUpdates>(stack, firewall, uint16_t(port), key,
                                                number("fw_max_bytes", kDefaultMaxBlob));
    std::printf("firewall: management on port %llu\n", (unsigned long long)port);
  }
  if (uint64_t seconds = number("stats", 0); seconds) {
    os::Timers::periodic(std::chrono::seconds(seconds), [](os::Timers::id_t) {
      std::printf("firewall: memory in_use=%zu\n", os::memory_in_use());
      print_moved("counters", firewall.counters());
      print_moved("conntrack", firewall.conntrack().counters());
      print_moved("nat", firewall.nat().counters());
      if (updates) print_moved("updates", updates->counters());
      // The stack's and each interface's too: a stalled transmit queue shows there.
      net::Stack& stack = net::stack();
      print_moved("stack", stack.counters());
      for (std::size_t i = 0; i < stack.interface_count(); ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "net%zu", i);
        print_moved(name, stack.interface(net::InterfaceId(i)).counters());
      }
    });
  }
  std::printf("firewall: %zu rules, forwarding between %zu interfaces (rules checked in %lld us)\n",
              firewall.tables().rules.size(), stack.interface_count(),
              static_cast<long long>(loaded_us));
}
