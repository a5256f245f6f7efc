// Network configuration from command-line words (api/net/config.hpp; format
// in docs/net/README.md). Parsing only: system.cpp finds the words. The JSON
// reader is config_json.cpp, linked only into images that embed JSON.
#include <charconv>
#include <net/config.hpp>

#include "config_values.hpp"

namespace net {
namespace {

using namespace config_values;

// route=DEST/LEN,GATEWAY[,INTERFACE] or route=DEST/LEN,,INTERFACE (on-link),
// IPv4 or IPv6.
ConfigError parse_route_word(std::string_view name, std::string_view value, RouteConfig& r) {
  auto comma = value.find(',');
  if (comma == std::string_view::npos)
    return std::string(name) + ": " + quoted(value) + " is not DEST/LEN,GATEWAY[,INTERFACE]";
  if (auto e = parse_prefix(name, value.substr(0, comma), r.destination, r.prefix_len); !e.empty())
    return e;
  std::string_view rest = value.substr(comma + 1);
  auto second = rest.find(',');
  std::string_view gateway = rest.substr(0, second);
  if (!gateway.empty()) {
    if (auto e = parse_any_addr(name, gateway, r.gateway); !e.empty()) return e;
  }
  if (second != std::string_view::npos) {
    std::string_view iface = rest.substr(second + 1);
    unsigned n = 0;
    auto [end, ec] = std::from_chars(iface.data(), iface.data() + iface.size(), n);
    if (ec != std::errc() || end != iface.data() + iface.size() || n > 63)
      return std::string(name) + ": " + quoted(iface) + " is not an interface number";
    r.interface = int(n);
  }
  return check_route(name, r);
}

// Stack-wide command-line words; false when `name` is not one of them.
bool apply_stack_word(std::string_view name, std::string_view value, Config& config,
                      ConfigError& e) {
  ReassemblyConfig& r = config.stack.reassembly;
  if (name == "reassembly_bytes") {
    e = parse_bytes(name, value, r.max_bytes);
  } else if (name == "reassembly_source_bytes") {
    e = parse_bytes(name, value, r.max_bytes_per_source);
  } else if (name == "reassembly_timeout") {
    e = parse_seconds(name, value, r.timeout);
    if (e.empty() && (r.timeout.count() == 0 || r.timeout.count() > 3600))
      e = std::string(name) + ": expected 1 to 3600 seconds";
    r.timeout6 = r.timeout;
  } else if (name == "forward" || name == "tso") {
    bool& setting = name == "tso" ? config.stack.segmentation_offload : config.stack.forwarding;
    if (value == "1" || value == "on")
      setting = true;
    else if (value == "0" || value == "off")
      setting = false;
    else
      e = std::string(name) + ": " + quoted(value) + " is not on or off";
  } else if (name == "route") {
    RouteConfig route;
    e = parse_route_word(name, value, route);
    if (e.empty()) config.routes.push_back(route);
  } else {
    return false;
  }
  return true;
}

}  // namespace

ConfigError apply_cmdline(const std::vector<std::string>& args, Config& config) {
  static constexpr std::string_view keys[] = {"ip",           "gw",      "dns", "netmask",
                                              "dhcp_timeout", "dhcp_t1", "iid", "mtu"};
  for (const std::string& arg : args) {
    auto eq = arg.find('=');
    if (eq == std::string::npos) continue;
    std::string_view name(arg.data(), eq), value(arg.data() + eq + 1, arg.size() - eq - 1);
    if (ConfigError e; apply_stack_word(name, value, config, e)) {
      if (!e.empty()) return e;
      continue;
    }
    std::string_view key;
    for (std::string_view k : keys) {
      // "ip", "ip0", "ip1"... ; "dhcp_t1" must not read as "dhcp_t" + 1.
      if (name.substr(0, k.size()) != k) continue;
      std::string_view digits = name.substr(k.size());
      if (!digits.empty() && digits.find_first_not_of("0123456789") != std::string_view::npos)
        continue;
      if (k.size() > key.size()) key = k;
    }
    if (key.empty()) continue;
    std::string_view digits = name.substr(key.size());
    std::size_t index = 0;
    if (!digits.empty()) {
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (ec != std::errc() || index > 63) return arg + ": bad interface number";
    }
    if (config.interfaces.size() <= index) config.interfaces.resize(index + 1);
    InterfaceConfig& c = config.interfaces[index];
    ConfigError e;
    if (key == "ip") {
      std::string_view without_auto = value;
      bool slaac = take_auto(without_auto);
      if (without_auto == "dhcp") {  // "dhcp" or "dhcp,auto"
        c.mode = InterfaceConfig::Mode::dhcp;
        if (slaac) e = parse_addresses(name, "auto", c);
      } else if (value == "none" || value == "off") {
        c.mode = InterfaceConfig::Mode::none;
      } else {
        e = parse_addresses(name, value, c);
        c.mode = InterfaceConfig::Mode::static_address;
      }
    } else if (key == "gw") {
      e = parse_gateways(name, value, c);
    } else if (key == "dns") {
      e = parse_dns_list(name, value, c);
    } else if (key == "netmask") {
      e = parse_addr(name, value, c.netmask);
    } else if (key == "dhcp_timeout") {
      e = parse_seconds(name, value, c.dhcp_timeout);
    } else if (key == "iid") {
      e = parse_iid(name, value, c);
    } else if (key == "mtu") {
      e = parse_mtu(name, value, c.mtu);
    } else if (key == "dhcp_t1") {
      std::chrono::seconds s;
      e = parse_seconds(name, value, s);
      c.dhcp_t1 = s;
    }
    if (!e.empty()) return e;
  }
  return {};
}

}  // namespace net
