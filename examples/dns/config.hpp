// The appliance's settings, from the kernel command line (with the network's
// own: ip=, gw=, ...; docs/net). No embedded JSON: its reader would add
// ~100 KiB to the image (docs/dns.md, "Size").
//
//   dns_port=53 dns_address=10.0.0.2 dns_zones=example.com,example.net
//   dns_log=1 dns_stats=10 dns_prerender=0 dns_edns_payload=1232
//   dns_rrl=20 dns_slip=2 dns_ipv4_prefix=24 dns_ipv6_prefix=56
//   dns_tcp=1 dns_tcp_idle=10000 (ms) dns_tcp_max=1000 dns_tcp_per_client=32
//   dns_xfr_allow=10.0.0.0/8,192.0.2.7@xfr-key (AXFR out; default: nobody;
//     @KEY: only requests signed with that TSIG key, as NSD's provide-xfr)
//   dns_key=hmac-sha256:xfr-key:BASE64,... (TSIG keys, RFC 8945, as dig -y)
//   dns_secondary=example.org:192.0.2.1#53@xfr-key,... (zones taken from a
//     primary: secondary.hpp) dns_xfr_in_max=16777216 (octets of one transfer in)
//     (images built with -D KEEL_DNS_SECONDARY=ON only: CMakeLists.txt)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dns_socket.hpp"
#include "keel/dns/rate_limiter.hpp"
#include "keel/dns/secondary.hpp"
#include "keel/dns/transfer.hpp"
#include "keel/dns/tsig.hpp"

namespace dns_app {

struct Config {
  uint16_t port = 53;
  std::optional<uint32_t> address;  // listen only on this interface address (host order)
  std::vector<std::string> zones;   // serve only these of the compiled-in zones; empty: all
  bool query_log = false;
  uint32_t stats_interval = 0;  // seconds between counter lines; 0: none
  bool prerender = true;
  uint16_t edns_payload = 1232;
  keel::dns::RateLimitOptions rate_limit;  // UDP only: TCP is not rate limited
  TcpLimits tcp;
  keel::dns::TransferAcl transfer;            // dns_xfr_allow=: who may AXFR; nobody by default
  std::vector<keel::dns::TsigKey> tsig_keys;  // dns_key=
  std::vector<keel::dns::SecondaryZone> secondaries;  // dns_secondary=
  uint32_t xfr_in_max = 16 * 1024 * 1024;             // dns_xfr_in_max=
};

// Reads the command line; returns the first error ("dns_port: ..."), or an
// empty string.
std::string load_config(Config& config);

}  // namespace dns_app
