#include "config.hpp"

#include <os>
#include <util/settings.hpp>

#include "dns_socket.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/tsig.hpp"

namespace dns_app {
namespace {

using keel::settings::parse_bool;
using keel::settings::parse_uint;

#if KEEL_DNS_SECONDARY
constexpr uint32_t max_xfr_in = 1u << 30;  // 1 GiB: far past what an image holds
#else
// The secondary role is linked only into images built with it (decision 0141).
constexpr const char* no_secondary_role =
    "this image is built without the secondary role: build it with -D KEEL_DNS_SECONDARY=ON "
    "(docs/dns.md, \"Secondary zones\")";
#endif

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    if (comma != 0) out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// One setting by name, from its command-line text.
std::string apply(Config& c, const std::string& field, const std::string& key,
                  const std::string& value) {
  uint32_t n = 0;
  std::string error;
  if (key == "port") {
    if ((error = parse_uint(field, value, 65535, n)).empty()) c.port = uint16_t(n);
  } else if (key == "address") {
    if (!(c.address = parse_ipv4(value)))
      error = field + ": '" + value + "' is not an IPv4 address";
  } else if (key == "zones") {
    c.zones = split(value);
  } else if (key == "log") {
    error = parse_bool(field, value, c.query_log);
  } else if (key == "stats") {
    error = parse_uint(field, value, 86400, c.stats_interval);
  } else if (key == "prerender") {
    error = parse_bool(field, value, c.prerender);
  } else if (key == "edns_payload") {
    if ((error = parse_uint(field, value, 65535, n)).empty()) c.edns_payload = uint16_t(n);
  } else if (key == "rrl") {
    error = parse_uint(field, value, 1000000, c.rate_limit.responses_per_second);
  } else if (key == "slip") {
    error = parse_uint(field, value, 100, c.rate_limit.slip);
  } else if (key == "ipv4_prefix") {
    if ((error = parse_uint(field, value, 32, n)).empty()) c.rate_limit.ipv4_prefix = uint8_t(n);
  } else if (key == "ipv6_prefix") {
    if ((error = parse_uint(field, value, 128, n)).empty()) c.rate_limit.ipv6_prefix = uint8_t(n);
  } else if (key == "tcp") {
    error = parse_bool(field, value, c.tcp.enabled);
  } else if (key == "tcp_idle") {
    error = parse_uint(field, value, 3'600'000, c.tcp.idle_timeout_ms);
  } else if (key == "tcp_max") {
    error = parse_uint(field, value, 1'000'000, c.tcp.max_connections);
  } else if (key == "tcp_per_client") {
    error = parse_uint(field, value, 1'000'000, c.tcp.max_per_client);
  } else if (key == "xfr_allow") {
    c.transfer = {};
    for (const std::string& entry : split(value)) {
      // NSD's provide-xfr: ADDRESS NOKEY, or ADDRESS@KEY (that key required).
      const std::size_t at = entry.find('@');
      const std::string text = entry.substr(0, at);
      keel::dns::AddressPrefix prefix;
      if (!keel::dns::parse_prefix(text, prefix)) {
        error = field + ": '" + text + "' is not an IPv4 address or prefix (10.0.0.0/8)";
        break;
      }
      if (at == std::string::npos) {
        c.transfer.allow.push_back(prefix);
        continue;
      }
      std::string name = keel::dns::tsig_key_name(std::string_view(entry).substr(at + 1));
      if (name.empty()) {
        error = field + ": '" + entry.substr(at + 1) + "' is not a key name";
        break;
      }
      c.transfer.allow_keyed.push_back({prefix, std::move(name)});
    }
  } else if (key == "key") {
    c.tsig_keys.clear();
    for (const std::string& text : split(value)) {
      keel::dns::TsigKey k;
      if (std::string e = keel::dns::parse_tsig_key(text, k); !e.empty()) {
        error = field + ": " + e;
        break;
      }
      c.tsig_keys.push_back(std::move(k));
    }
#if !KEEL_DNS_SECONDARY
  } else if (key == "secondary" || key == "xfr_in_max") {
    error = field + ": " + no_secondary_role;
#else
  } else if (key == "secondary") {
    c.secondaries.clear();
    for (const std::string& text : split(value)) {
      keel::dns::SecondaryZone zone;
      if (std::string e = keel::dns::parse_secondary(text, zone); !e.empty()) {
        error = field + ": " + e;
        break;
      }
      c.secondaries.push_back(std::move(zone));
    }
  } else if (key == "xfr_in_max") {
    error = parse_uint(field, value, max_xfr_in, c.xfr_in_max);
    if (error.empty() && c.xfr_in_max < keel::dns::max_message_size)
      error = field + ": '" + value + "' is less than one message (65535)";
#endif
  } else {
    error = field + ": unknown setting";
  }
  return error;
}

}  // namespace

std::string load_config(Config& config) {
  std::string error = keel::settings::apply_all(
      os::args(), "dns_",
      [&config](const std::string& field, const std::string& key, const std::string& value) {
        return apply(config, field, key, value);
      });
  if (!error.empty()) return error;
  // A keyed access list entry names a key dns_key= gives.
  for (const auto& entry : config.transfer.allow_keyed) {
    bool known = false;
    for (const auto& k : config.tsig_keys) known = known || k.name == entry.key;
    if (!known)
      return "dns_xfr_allow: key '" + keel::dns::name_to_text(entry.key) + "' is not in dns_key=";
  }
  for (std::size_t i = 0; i < config.secondaries.size(); ++i) {
    const auto& zone = config.secondaries[i];
    const std::string name = keel::dns::name_to_text(zone.origin);
    bool known = zone.key.empty();
    for (const auto& k : config.tsig_keys) known = known || k.name == zone.key;
    if (!known)
      return "dns_secondary: key '" + keel::dns::name_to_text(zone.key) + "' is not in dns_key=";
    for (std::size_t j = 0; j < i; ++j) {
      if (config.secondaries[j].origin == zone.origin)
        return "dns_secondary: zone '" + name + "' is named twice";
    }
  }
  return {};
}

}  // namespace dns_app
