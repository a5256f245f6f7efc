// Network configuration: an embedded JSON file, overridden by the kernel
// command line. Format and precedence: docs/net/README.md.
#pragma once
#include <chrono>
#include <cstddef>
#include <net/address.hpp>
#include <net/ip4_addr.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace net {

// How SLAAC forms an address's interface identifier (docs/net/ipv6.md,
// decision 0133): RFC 7217's keyed hash (the default), or the MAC's EUI-64.
enum class SlaacIid : uint8_t { stable, eui64 };

struct InterfaceConfig {
  enum class Mode { none, static_address, dhcp };
  Mode mode = Mode::none;
  // Static settings; with dhcp they are the fallback when no lease comes.
  ip4::Addr address, netmask, gateway;
  std::vector<ip4::Addr> dns;
  // A static IPv6 address with its prefix length, and an IPv6 gateway
  // (`ip=10.0.0.2/24,fd00::2/64 gw=10.0.0.1,fd00::1`; docs/net/ipv6.md).
  ip6::Addr address6, gateway6;
  uint8_t prefix6 = 64;
  // SLAAC and router discovery (`ip=auto`, `ip=10.0.0.2/24,auto`, `iid=eui64`).
  bool slaac = false;
  SlaacIid iid = SlaacIid::stable;
  // The link's MTU lowered below the NIC's (`mtu1=1400`, a tunnel or a
  // router's narrower link); 0: the NIC's. At least 1280 (RFC 8200 §5).
  uint16_t mtu = 0;
  // DHCP: give up (and fall back to the static settings, if any) after this.
  std::chrono::seconds dhcp_timeout{10};
  // Tests: renew at this time instead of the server's T1.
  std::optional<std::chrono::seconds> dhcp_t1;

  bool has_static_address() const { return !address.is_any(); }
};

// Fragment reassembly, for the whole stack (src/net/fragments/reassembly.hpp):
// IPv4 and IPv6 each get these limits (decision 0132).
struct ReassemblyConfig {
  // Memory for datagrams in progress; 0: a sixteenth of the image's memory,
  // within [256 KiB, 8 MiB].
  std::size_t max_bytes = 0;
  // What one source address may hold of it; 0: a quarter.
  std::size_t max_bytes_per_source = 0;
  // RFC 791 §3.2 suggests 15 s as the reassembly timer's lower bound.
  std::chrono::seconds timeout{15};
  // RFC 8200 §4.5: 60 s for IPv6. Setting `reassembly_timeout` sets both.
  std::chrono::seconds timeout6{60};
};

// A static route, IPv4 or IPv6: destination/prefix through a gateway of the
// same family, or on a link (`route=2001:db8:2::/48,fd01::1`).
struct RouteConfig {
  Address destination;
  uint8_t prefix_len = 0;
  Address gateway;     // none: on the interface's link
  int interface = -1;  // -1: the interface whose subnet (prefix) holds the gateway
  uint32_t metric = 0;
};

// Settings of the host stack as a whole.
struct StackConfig {
  ReassemblyConfig reassembly;
  bool forwarding = false;  // route between interfaces (a router)
  // TCP hands NICs that offer TSO (Nic::Offloads::tso4/tso6) segments of up to
  // 64 KiB, and virtio-net takes segments the host coalesced (GUEST_TSO4/6,
  // decision 0093), as does the Linux process's TAP (TUN_F_TSO4/6, decision
  // 0094); off: MSS-sized segments only, both ways (the word tso=off, JSON
  // net.tso).
  bool segmentation_offload = true;
  std::size_t total_memory = 0;  // what defaults are scaled to; 0: os::total_memory()
};

struct Config {
  std::vector<InterfaceConfig> interfaces;
  std::vector<RouteConfig> routes;
  StackConfig stack;

  // The config for interface n (a default one when absent).
  InterfaceConfig interface(std::size_t n) const {
    return n < interfaces.size() ? interfaces[n] : InterfaceConfig{};
  }
};

// An error names the field: "net.interfaces[1].gateway: '10.0.0' is not an
// IPv4 address". Empty on success.
using ConfigError = std::string;

// Parses {"net": {"interfaces": [{...}]}} (see docs/net/README.md) into
// `config`. Empty or absent "net" leaves it unchanged.
ConfigError parse_config_json(std::string_view json, Config& config);
using JsonConfigParser = ConfigError (*)(std::string_view json, Config& config);
// Applies command-line words: ip=, gw=, dns=, netmask=, dhcp_timeout=,
// dhcp_t1= for interface 0, and ip1=, gw1=... (or ip0=...) per interface;
// route=, forward=, reassembly_*= for the stack. Unrelated words are ignored.
ConfigError apply_cmdline(const std::vector<std::string>& args, Config& config);

}  // namespace net
