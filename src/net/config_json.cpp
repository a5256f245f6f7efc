// Network configuration from JSON (api/net/config.hpp; format in
// docs/net/README.md), with nlohmann::json. Linked only where JSON is
// embedded (keel_net_config() refers to keel_net_json_parser below) or a
// service calls parse_config_json(): it is about 50 KiB of code.
#include <charconv>
#include <net/config.hpp>
#include <nlohmann/json.hpp>

#include "config_values.hpp"

namespace net {
namespace {

using json = nlohmann::json;
using namespace config_values;

ConfigError parse_route_json(const json& j, const std::string& at, RouteConfig& r) {
  if (!j.is_object()) return at + ": expected an object";
  for (auto& item : j.items()) {
    std::string field = at + "." + item.key();
    const json& value = item.value();
    ConfigError e;
    if (item.key() == "destination" || item.key() == "gateway") {
      if (!value.is_string()) return field + ": expected a string";
      std::string text = value.get<std::string>();
      e = item.key() == "gateway" ? parse_any_addr(field, text, r.gateway)
                                  : parse_prefix(field, text, r.destination, r.prefix_len);
    } else if (item.key() == "interface" || item.key() == "metric") {
      if (!value.is_number_unsigned() || value.get<uint64_t>() > 1'000'000)
        return field + ": expected a whole number";
      if (item.key() == "interface")
        r.interface = int(value.get<uint64_t>());
      else
        r.metric = uint32_t(value.get<uint64_t>());
    } else {
      return field + ": unknown field";
    }
    if (!e.empty()) return e;
  }
  return check_route(at, r);
}

ConfigError parse_reassembly(const json& j, ReassemblyConfig& r) {
  if (!j.is_object()) return "net.reassembly: expected an object";
  for (auto& item : j.items()) {
    std::string field = "net.reassembly." + item.key();
    const json& value = item.value();
    if (!value.is_number_unsigned()) return field + ": expected a whole number";
    uint64_t n = value.get<uint64_t>();
    if (item.key() == "timeout") {
      if (n == 0 || n > 3600) return field + ": expected 1 to 3600 seconds";
      r.timeout = r.timeout6 = std::chrono::seconds(n);
    } else if (item.key() == "max_bytes" || item.key() == "max_bytes_per_source") {
      if (auto e = parse_bytes(field, std::to_string(n),
                               item.key() == "max_bytes" ? r.max_bytes : r.max_bytes_per_source);
          !e.empty())
        return e;
    } else {
      return field + ": unknown field";
    }
  }
  return {};
}

ConfigError parse_interface(const json& j, const std::string& at, InterfaceConfig& c) {
  if (!j.is_object()) return at + ": expected an object";
  for (auto& item : j.items()) {
    const std::string& key = item.key();
    const json& value = item.value();  // (not a structured binding: clang 14 lambdas)
    std::string field = at + "." + key;
    auto need_string = [&]() -> ConfigError {
      return value.is_string() ? ConfigError{} : field + ": expected a string";
    };
    ConfigError e;
    if (key == "address") {
      if ((e = need_string()).empty()) e = parse_addresses(field, value.get<std::string>(), c);
      if (e.empty() && c.mode == InterfaceConfig::Mode::none)
        c.mode = InterfaceConfig::Mode::static_address;
    } else if (key == "iid") {
      if ((e = need_string()).empty()) e = parse_iid(field, value.get<std::string>(), c);
    } else if (key == "mtu") {
      if (!value.is_number_unsigned()) return field + ": expected a whole number";
      e = parse_mtu(field, std::to_string(value.get<uint64_t>()), c.mtu);
    } else if (key == "netmask") {
      if ((e = need_string()).empty()) e = parse_addr(field, value.get<std::string>(), c.netmask);
    } else if (key == "gateway") {
      if ((e = need_string()).empty()) e = parse_gateways(field, value.get<std::string>(), c);
    } else if (key == "dns") {
      if (!value.is_array()) return field + ": expected an array of addresses";
      c.dns.clear();
      for (std::size_t i = 0; i < value.size() && e.empty(); ++i) {
        std::string f = field + "[" + std::to_string(i) + "]";
        if (!value[i].is_string()) return f + ": expected a string";
        ip4::Addr a;
        e = parse_addr(f, value[i].get<std::string>(), a);
        c.dns.push_back(a);
      }
    } else if (key == "dhcp") {
      if (!value.is_boolean()) return field + ": expected true or false";
      if (value.get<bool>())
        c.mode = InterfaceConfig::Mode::dhcp;
      else if (c.mode == InterfaceConfig::Mode::dhcp)
        c.mode = InterfaceConfig::Mode::static_address;
    } else if (key == "dhcp_timeout" || key == "dhcp_t1") {
      if (!value.is_number_unsigned()) return field + ": expected a whole number of seconds";
      std::chrono::seconds s(value.get<uint64_t>());
      if (key == "dhcp_timeout")
        c.dhcp_timeout = s;
      else
        c.dhcp_t1 = s;
    } else {
      return field + ": unknown field";
    }
    if (!e.empty()) return e;
  }
  return {};
}

}  // namespace

ConfigError parse_config_json(std::string_view text, Config& config) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return "net config: not valid JSON";
  if (!j.is_object()) return "net config: expected an object";
  if (!j.contains("net")) return {};
  const json& net = j["net"];
  if (!net.is_object()) return "net: expected an object";
  for (auto& [key, value] : net.items()) {
    if (key == "reassembly") {
      if (auto e = parse_reassembly(value, config.stack.reassembly); !e.empty()) return e;
      continue;
    }
    if (key == "forwarding" || key == "tso") {
      if (!value.is_boolean()) return "net." + key + ": expected true or false";
      (key == "tso" ? config.stack.segmentation_offload : config.stack.forwarding) =
          value.get<bool>();
      continue;
    }
    if (key == "routes") {
      if (!value.is_array()) return "net.routes: expected an array";
      for (std::size_t i = 0; i < value.size(); ++i) {
        RouteConfig route;
        auto e = parse_route_json(value[i], "net.routes[" + std::to_string(i) + "]", route);
        if (!e.empty()) return e;
        config.routes.push_back(route);
      }
      continue;
    }
    if (key != "interfaces") return "net." + key + ": unknown field";
    if (!value.is_array()) return "net.interfaces: expected an array";
    config.interfaces.resize(std::max(config.interfaces.size(), value.size()));
    for (std::size_t i = 0; i < value.size(); ++i) {
      auto e = parse_interface(value[i], "net.interfaces[" + std::to_string(i) + "]",
                               config.interfaces[i]);
      if (!e.empty()) return e;
    }
  }
  return {};
}

}  // namespace net

// What system.cpp calls to read embedded JSON (a weak reference there).
// (Declared extern first: a const object would have internal linkage.)
extern "C" {
extern const net::JsonConfigParser keel_net_json_parser;
const net::JsonConfigParser keel_net_json_parser = &net::parse_config_json;
}
