#include "config_values.hpp"

#include <charconv>

namespace net::config_values {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

ConfigError parse_addr(std::string_view field, std::string_view text, ip4::Addr& out) {
  auto addr = ip4::Addr::parse(text);
  if (!addr) return std::string(field) + ": " + quoted(text) + " is not an IPv4 address";
  out = *addr;
  return {};
}

ConfigError parse_seconds(std::string_view field, std::string_view text,
                          std::chrono::seconds& out) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > 86400 * 365)
    return std::string(field) + ": " + quoted(text) + " is not a number of seconds";
  out = std::chrono::seconds(value);
  return {};
}

ConfigError parse_bytes(std::string_view field, std::string_view text, std::size_t& out) {
  constexpr std::size_t max_bytes = std::size_t(1) << 30;
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view unit(end, std::size_t(text.data() + text.size() - end));
  int shift = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : -1;
  if (ec != std::errc() || end == text.data() || shift < 0 || value > (max_bytes >> shift))
    return std::string(field) + ": " + quoted(text) +
           " is not a size in bytes (e.g. 4194304, 4096K, 4M) up to 1G";
  out = value << shift;
  return {};
}

namespace {

ConfigError parse_prefix_length(std::string_view field, std::string_view text, unsigned max,
                                uint8_t& out) {
  unsigned prefix = max + 1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), prefix);
  if (ec != std::errc() || end != text.data() + text.size() || prefix > max)
    return std::string(field) + ": " + quoted(text) + " is not a prefix length 0.." +
           std::to_string(max);
  out = uint8_t(prefix);
  return {};
}

}  // namespace

ConfigError parse_prefix(std::string_view field, std::string_view text, Address& address,
                         uint8_t& prefix_len) {
  constexpr unsigned ip4_bits = 32, ip6_bits = 128;
  if (text == "default") {
    address = ip4::Addr{};
    prefix_len = 0;
    return {};
  }
  auto slash = text.find('/');
  if (slash == std::string_view::npos)
    return std::string(field) + ": " + quoted(text) + " is not an address/prefix";
  if (auto e = parse_any_addr(field, text.substr(0, slash), address); !e.empty()) return e;
  return parse_prefix_length(field, text.substr(slash + 1), address.is_ip6() ? ip6_bits : ip4_bits,
                             prefix_len);
}

ConfigError parse_mtu(std::string_view field, std::string_view text, uint16_t& out) {
  constexpr unsigned min_mtu = 1280, max_mtu = 65535;
  unsigned mtu = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mtu);
  if (ec != std::errc() || end != text.data() + text.size() || mtu < min_mtu || mtu > max_mtu)
    return std::string(field) + ": " + quoted(text) + " is not an MTU from 1280 to 65535";
  out = uint16_t(mtu);
  return {};
}

ConfigError parse_any_addr(std::string_view field, std::string_view text, Address& out) {
  auto a = Address::parse(text);
  if (!a) return std::string(field) + ": " + quoted(text) + " is not an IPv4 or IPv6 address";
  out = *a;
  return {};
}

ConfigError check_route(std::string_view field, const RouteConfig& r) {
  if (r.gateway.is_any() && r.interface < 0)
    return std::string(field) + ": needs a gateway or an interface";
  if (!r.gateway.is_any() && r.gateway.family() != r.destination.family())
    return std::string(field) + ": the gateway is not of the destination's family";
  return {};
}

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

namespace {

ConfigError parse_addr6(std::string_view field, std::string_view text, ip6::Addr& out) {
  auto a = Address::parse(text);
  if (!a || !a->is_ip6()) return std::string(field) + ": " + quoted(text) + " is not an address";
  out = a->ip6();
  return {};
}

ConfigError parse_address6(std::string_view field, std::string_view text, InterfaceConfig& c) {
  constexpr unsigned max_prefix = 128;
  auto slash = text.find('/');
  if (auto e = parse_addr6(field, text.substr(0, slash), c.address6); !e.empty()) return e;
  if (slash == std::string_view::npos) return {};  // the default /64 (RFC 4291 §2.5.4)
  return parse_prefix_length(field, text.substr(slash + 1), max_prefix, c.prefix6);
}

// Calls `each(part, is_ip6)` for the comma-separated parts, at most one per family.
template <class Each>
ConfigError split_families(std::string_view field, std::string_view text, Each each) {
  bool seen4 = false, seen6 = false;
  while (true) {
    auto comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    bool ip6 = part.find(':') != std::string_view::npos;
    if ((ip6 ? seen6 : seen4))
      return std::string(field) + ": " + quoted(part) + ": one address per family";
    (ip6 ? seen6 : seen4) = true;
    if (auto e = each(part, ip6); !e.empty()) return e;
    if (comma == std::string_view::npos) return {};
    text = text.substr(comma + 1);
  }
}

}  // namespace

bool take_auto(std::string_view& text) {
  constexpr std::string_view word = "auto", after_comma = ",auto";
  if (text == word) {
    text = {};
    return true;
  }
  if (!text.ends_with(after_comma)) return false;
  text.remove_suffix(after_comma.size());
  return true;
}

ConfigError parse_iid(std::string_view field, std::string_view text, InterfaceConfig& c) {
  if (text == "stable") {
    c.iid = SlaacIid::stable;
  } else if (text == "eui64") {
    c.iid = SlaacIid::eui64;
  } else {
    return std::string(field) + ": " + quoted(text) + " is not stable or eui64";
  }
  return {};
}

ConfigError parse_addresses(std::string_view field, std::string_view text, InterfaceConfig& c) {
  bool slaac = take_auto(text);
  if (slaac || text.find(':') != std::string_view::npos) {
    c.slaac = slaac;
    c.address6 = {};
  }
  if (slaac && text.empty()) return {};
  return split_families(field, text, [&](std::string_view part, bool ip6) {
    return ip6 ? parse_address6(field, part, c) : parse_address(field, part, c);
  });
}

ConfigError parse_gateways(std::string_view field, std::string_view text, InterfaceConfig& c) {
  return split_families(field, text, [&](std::string_view part, bool ip6) {
    return ip6 ? parse_addr6(field, part, c.gateway6) : parse_addr(field, part, c.gateway);
  });
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

}  // namespace net::config_values
