// Parsers of single configuration values, shared by the command-line and
// JSON readers (config.cpp, config_json.cpp). Each returns an error that
// names `field`, or an empty string.
#pragma once
#include <chrono>
#include <cstddef>
#include <net/config.hpp>
#include <string>
#include <string_view>

namespace net::config_values {

std::string quoted(std::string_view s);
ConfigError parse_addr(std::string_view field, std::string_view text, ip4::Addr& out);
ConfigError parse_seconds(std::string_view field, std::string_view text, std::chrono::seconds& out);
// "4194304", "4096K", "4M" (binary units), up to 1 GiB.
ConfigError parse_bytes(std::string_view field, std::string_view text, std::size_t& out);
// "10.2.0.0/16", "2001:db8:2::/48", "default" (0.0.0.0/0) or "::/0".
ConfigError parse_prefix(std::string_view field, std::string_view text, Address& address,
                         uint8_t& prefix_len);
// "10.0.0.1" or "fd00::1".
ConfigError parse_any_addr(std::string_view field, std::string_view text, Address& out);
// A route needs a gateway or an interface, and a gateway of its destination's family.
ConfigError check_route(std::string_view field, const RouteConfig& r);
// "10.0.0.2/24" or "10.0.0.2" (the interface's prefix kept as is).
ConfigError parse_address(std::string_view field, std::string_view text, InterfaceConfig& c);
// "10.0.0.2/24", "fd00::2/64" or both, comma-separated: one of each family,
// and `auto` last for SLAAC ("auto", "10.0.0.2/24,auto"). An IPv6 part or
// `auto` replaces the IPv6 settings: SLAAC is on exactly when `auto` is there.
ConfigError parse_addresses(std::string_view field, std::string_view text, InterfaceConfig& c);
// Takes a last `auto` (alone or after a comma) off `text`: whether it was there.
bool take_auto(std::string_view& text);
// "stable" (RFC 7217) or "eui64": how SLAAC forms interface identifiers.
ConfigError parse_iid(std::string_view field, std::string_view text, InterfaceConfig& c);
// "10.0.0.1", "fe80::1" or both, comma-separated.
ConfigError parse_gateways(std::string_view field, std::string_view text, InterfaceConfig& c);
// "1400": a link MTU from 1280 (IPv6's minimum, RFC 8200 §5) to 65535.
ConfigError parse_mtu(std::string_view field, std::string_view text, uint16_t& out);
ConfigError parse_dns_list(std::string_view field, std::string_view text, InterfaceConfig& c);

}  // namespace net::config_values
