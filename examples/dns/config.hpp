// The appliance's settings: the "dns" object of the embedded config
// (config.json, see keel_net_config), then the command line, which wins.
//
//   "dns": {"port": 53, "address": "10.0.0.2", "zones": ["example.com"],
//           "query_log": false, "stats_interval": 0, "prerender": true,
//           "edns_payload": 1232, "rate_limit": {"responses_per_second": 0,
//           "slip": 2, "ipv4_prefix": 24, "ipv6_prefix": 56}}
//
//   dns_port=53 dns_address=10.0.0.2 dns_zones=example.com,example.net
//   dns_log=1 dns_stats=10 dns_prerender=0 dns_rrl=20 dns_slip=2
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "keel/dns/rate_limiter.hpp"

namespace dns_app {

struct Config {
  uint16_t port = 53;
  std::optional<uint32_t> address;  // listen only on this interface address (host order)
  std::vector<std::string> zones;   // serve only these of the compiled-in zones; empty: all
  bool query_log = false;
  uint32_t stats_interval = 0;  // seconds between counter lines; 0: none
  bool prerender = true;
  uint16_t edns_payload = 1232;
  keel::dns::RateLimitOptions rate_limit;
};

// Reads the embedded JSON and the command line; returns the first error
// ("dns.port: ..."), or an empty string.
std::string load_config(Config& config);

}  // namespace dns_app
