// Network configuration from JSON and command-line words (api/net/config.hpp;
// format in docs/net/README.md). Parsing only: system.cpp finds the texts.
#include <net/config.hpp>

#include <charconv>
#include <nlohmann/json.hpp>

namespace net {
namespace {

using json = nlohmann::json;

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

ConfigError parse_addr(std::string_view field, std::string_view text, ip4::Addr& out) {
  auto addr = ip4::Addr::parse(text);
  if (!addr) return std::string(field) + ": " + quoted(text) + " is not an IPv4 address";
  out = *addr;
  return {};
}

ConfigError parse_seconds(std::string_view field, std::string_view text, std::chrono::seconds& out) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > 86400 * 365)
    return std::string(field) + ": " + quoted(text) + " is not a number of seconds";
  out = std::chrono::seconds(value);
  return {};
}

// "4194304", "4096K", "4M" (binary units), up to 1 GiB.
ConfigError parse_bytes(std::string_view field, std::string_view text, std::size_t& out) {
  constexpr std::size_t max_bytes = std::size_t(1) << 30;
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view unit(end, std::size_t(text.data() + text.size() - end));
  int shift = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : -1;
  if (ec != std::errc() || end == text.data() || shift < 0 || value > (max_bytes >> shift))
    return std::string(field) + ": " + quoted(text) + " is not a size in bytes (e.g. 4194304, 4096K, 4M) up to 1G";
  out = value << shift;
  return {};
}

// "10.2.0.0/16" or "default" (0.0.0.0/0).
ConfigError parse_prefix(std::string_view field, std::string_view text, ip4::Addr& address,
                         uint8_t& prefix_len) {
  if (text == "default") {
    address = {};
    prefix_len = 0;
    return {};
  }
  auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::string(field) + ": " + quoted(text) + " is not an address/prefix";
  if (auto e = parse_addr(field, text.substr(0, slash), address); !e.empty()) return e;
  std::string_view p = text.substr(slash + 1);
  unsigned prefix = 99;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), prefix);
  if (ec != std::errc() || end != p.data() + p.size() || prefix > 32)
    return std::string(field) + ": " + quoted(p) + " is not a prefix length 0..32";
  prefix_len = uint8_t(prefix);
  return {};
}

ConfigError parse_route_json(const json& j, const std::string& at, RouteConfig& r) {
  if (!j.is_object()) return at + ": expected an object";
  for (auto& item : j.items()) {
    std::string field = at + "." + item.key();
    const json& value = item.value();
    ConfigError e;
    if (item.key() == "destination" || item.key() == "gateway") {
      if (!value.is_string()) return field + ": expected a string";
      std::string text = value.get<std::string>();
      e = item.key() == "gateway" ? parse_addr(field, text, r.gateway)
                                  : parse_prefix(field, text, r.destination, r.prefix_len);
    } else if (item.key() == "interface" || item.key() == "metric") {
      if (!value.is_number_unsigned() || value.get<uint64_t>() > 1'000'000)
        return field + ": expected a whole number";
      if (item.key() == "interface") r.interface = int(value.get<uint64_t>());
      else r.metric = uint32_t(value.get<uint64_t>());
    } else {
      return field + ": unknown field";
    }
    if (!e.empty()) return e;
  }
  if (r.gateway.is_any() && r.interface < 0) return at + ": needs a gateway or an interface";
  return {};
}

// route=DEST/LEN,GATEWAY[,INTERFACE] or route=DEST/LEN,,INTERFACE (on-link).
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
    if (auto e = parse_addr(name, gateway, r.gateway); !e.empty()) return e;
  }
  if (second != std::string_view::npos) {
    std::string_view iface = rest.substr(second + 1);
    unsigned n = 0;
    auto [end, ec] = std::from_chars(iface.data(), iface.data() + iface.size(), n);
    if (ec != std::errc() || end != iface.data() + iface.size() || n > 63)
      return std::string(name) + ": " + quoted(iface) + " is not an interface number";
    r.interface = int(n);
  }
  if (r.gateway.is_any() && r.interface < 0)
    return std::string(name) + ": needs a gateway or an interface";
  return {};
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
      r.timeout = std::chrono::seconds(n);
    } else if (item.key() == "max_bytes" || item.key() == "max_bytes_per_source") {
      if (auto e = parse_bytes(field, std::to_string(n), item.key() == "max_bytes" ? r.max_bytes
                                                                                 : r.max_bytes_per_source);
          !e.empty())
        return e;
    } else {
      return field + ": unknown field";
    }
  }
  return {};
}

// Stack-wide command-line words; false when `name` is not one of them.
bool apply_stack_word(std::string_view name, std::string_view value, Config& config, ConfigError& e) {
  ReassemblyConfig& r = config.stack.reassembly;
  if (name == "reassembly_bytes") {
    e = parse_bytes(name, value, r.max_bytes);
  } else if (name == "reassembly_source_bytes") {
    e = parse_bytes(name, value, r.max_bytes_per_source);
  } else if (name == "reassembly_timeout") {
    e = parse_seconds(name, value, r.timeout);
    if (e.empty() && (r.timeout.count() == 0 || r.timeout.count() > 3600))
      e = std::string(name) + ": expected 1 to 3600 seconds";
  } else if (name == "forward") {
    if (value == "1" || value == "on") config.stack.forwarding = true;
    else if (value == "0" || value == "off") config.stack.forwarding = false;
    else e = std::string(name) + ": " + quoted(value) + " is not on or off";
  } else if (name == "route") {
    RouteConfig route;
    e = parse_route_word(name, value, route);
    if (e.empty()) config.routes.push_back(route);
  } else {
    return false;
  }
  return true;
}

// "10.0.0.2/24" or "10.0.0.2" (prefix kept as is).
ConfigError parse_address(std::string_view field, std::string_view text, InterfaceConfig& c) {
  auto slash = text.find('/');
  if (auto e = parse_addr(field, text.substr(0, slash), c.address); !e.empty()) return e;
  if (slash == std::string_view::npos) {
    if (c.netmask.is_any()) c.netmask = ip4::netmask_of(24);
    return {};
  }
  std::string_view p = text.substr(slash + 1);
  int prefix = -1;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), prefix);
  if (ec != std::errc() || end != p.data() + p.size() || prefix < 0 || prefix > 32)
    return std::string(field) + ": " + quoted(p) + " is not a prefix length 0..32";
  c.netmask = ip4::netmask_of(prefix);
  return {};
}

ConfigError parse_dns_list(std::string_view field, std::string_view text, InterfaceConfig& c) {
  c.dns.clear();
  while (!text.empty()) {
    auto comma = text.find(',');
    ip4::Addr a;
    if (auto e = parse_addr(field, text.substr(0, comma), a); !e.empty()) return e;
    c.dns.push_back(a);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
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
      if ((e = need_string()).empty()) e = parse_address(field, value.get<std::string>(), c);
      if (e.empty() && c.mode == InterfaceConfig::Mode::none) c.mode = InterfaceConfig::Mode::static_address;
    } else if (key == "netmask") {
      if ((e = need_string()).empty()) e = parse_addr(field, value.get<std::string>(), c.netmask);
    } else if (key == "gateway") {
      if ((e = need_string()).empty()) e = parse_addr(field, value.get<std::string>(), c.gateway);
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
      if (value.get<bool>()) c.mode = InterfaceConfig::Mode::dhcp;
      else if (c.mode == InterfaceConfig::Mode::dhcp) c.mode = InterfaceConfig::Mode::static_address;
    } else if (key == "dhcp_timeout" || key == "dhcp_t1") {
      if (!value.is_number_unsigned()) return field + ": expected a whole number of seconds";
      std::chrono::seconds s(value.get<uint64_t>());
      if (key == "dhcp_timeout") c.dhcp_timeout = s;
      else c.dhcp_t1 = s;
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
    if (key == "forwarding") {
      if (!value.is_boolean()) return "net.forwarding: expected true or false";
      config.stack.forwarding = value.get<bool>();
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

ConfigError apply_cmdline(const std::vector<std::string>& args, Config& config) {
  static constexpr std::string_view keys[] = {"ip", "gw", "dns", "netmask", "dhcp_timeout", "dhcp_t1"};
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
      if (!digits.empty() && digits.find_first_not_of("0123456789") != std::string_view::npos) continue;
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
      if (value == "dhcp") {
        c.mode = InterfaceConfig::Mode::dhcp;
      } else if (value == "none" || value == "off") {
        c.mode = InterfaceConfig::Mode::none;
      } else {
        e = parse_address(name, value, c);
        c.mode = InterfaceConfig::Mode::static_address;
      }
    } else if (key == "gw") {
      e = parse_addr(name, value, c.gateway);
    } else if (key == "dns") {
      e = parse_dns_list(name, value, c);
    } else if (key == "netmask") {
      e = parse_addr(name, value, c.netmask);
    } else if (key == "dhcp_timeout") {
      e = parse_seconds(name, value, c.dhcp_timeout);
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
