// A Router Advertisement as received (RFC 4861 §4.2), parsed with the
// validity checks of §6.1.2 that are not the ICMPv6 layer's (which checks
// hop limit 255 and code 0 as for every ND message): a link-local source,
// 16 bytes at least, every option with a non-zero length inside the message,
// and the options this host uses well formed (source link-layer address,
// prefix information, MTU). Unknown options are skipped (§4.6). DNS
// options (RFC 8106) that are malformed are ignored and counted, the rest of
// the advertisement still taken (§5.3.1 ignores the option, not the RA).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <net/address.hpp>
#include <net/ethernet_addr.hpp>
#include <optional>
#include <string>

namespace net {

// A prefix information option (§4.6.2); lifetimes in seconds, 0xffffffff
// is infinity.
struct PrefixInfo {
  ip6::Addr prefix;  // the bits past `length` cleared
  uint8_t length = 0;
  bool on_link = false, autonomous = false;
  uint32_t valid_s = 0, preferred_s = 0;
};

// A recursive DNS server (RFC 8106 §5.1) or a search domain (§5.2), with
// its option's lifetime in seconds (0xffffffff: infinity, 0: no longer).
struct DnsServerInfo {
  ip6::Addr address;
  uint32_t lifetime_s = 0;
};
struct SearchDomainInfo {
  std::string name;  // "example.net": labels of letters, digits, '-' and '_'
  uint32_t lifetime_s = 0;
};

struct RaRepr {
  // Prefix options one advertisement may carry here; more are counted and
  // ignored (decision 0133).
  static constexpr std::size_t max_prefixes = 8;

  uint8_t cur_hop_limit = 0;
  uint16_t router_lifetime_s = 0;
  uint32_t reachable_ms = 0, retrans_ms = 0;
  std::optional<ethernet::Addr> source_mac;
  std::optional<uint32_t> mtu;
  std::array<PrefixInfo, max_prefixes> prefixes{};
  std::size_t prefix_count = 0;
  std::size_t prefixes_dropped = 0;
  // DNS servers and search domains read per advertisement; more are ignored.
  static constexpr std::size_t max_dns = 8;
  std::array<DnsServerInfo, max_dns> dns_servers{};
  std::size_t dns_server_count = 0;
  std::array<SearchDomainInfo, max_dns> search_domains{};
  std::size_t search_domain_count = 0;
  std::size_t dns_options_ignored = 0;  // malformed RDNSS or DNSSL options
};

enum class RaError : uint8_t { none, bad_source, bad_format };

// The advertisement of `len` bytes at `m` (the ICMPv6 message) from `src`.
RaError parse_router_advertisement(const ip6::Addr& src, const uint8_t* m, std::size_t len,
                                   RaRepr& out);

}  // namespace net
