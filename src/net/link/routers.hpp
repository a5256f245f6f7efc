// Router discovery for a host (RFC 4861 §6.3) on an interface with SLAAC
// on (`auto`): router solicitations at start (§6.3.7), and advertisements
// (parsed and checked by ra.hpp) kept as a default-router list and an
// on-link prefix list, both bounded and aged by their lifetimes, an MTU for
// IPv6 (§6.3.4), the router's MAC in the neighbour cache, autonomous
// prefixes handed to Slaac, and the DNS servers and search domains of RFC
// 8106, bounded and aged by their lifetimes, for services to read. Without `auto` advertisements
// are counted and ignored: a static configuration stays as it was (decision 0133).
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/config.hpp>
#include <net/counters.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ra.hpp"
#include "slaac.hpp"

namespace net {

class Link;
struct Ip6Received;

class RouterDiscovery {
 public:
  // RFC 4861 §10 host constants.
  static constexpr uint64_t max_rtr_solicitation_delay_ns = 1'000'000'000;
  static constexpr uint64_t rtr_solicitation_interval_ns = 4'000'000'000;
  static constexpr int max_rtr_solicitations = 3;
  // Bounds (decision 0133): a hostile advertiser costs a counter, not memory.
  static constexpr std::size_t max_routers = 8;
  static constexpr std::size_t max_prefixes = 16;
  // RFC 8106 §5.3.1 asks a host to keep at least three of each.
  static constexpr std::size_t max_dns_servers = 8;
  static constexpr std::size_t max_search_domains = 8;

  struct Router {
    ip6::Addr address;
    uint64_t expires = 0;
  };
  struct OnLink {
    ip6::Addr prefix;
    uint8_t length = 0;
    uint64_t expires = 0;  // UINT64_MAX: infinity
  };
  struct DnsServer {
    ip6::Addr address;
    uint64_t expires = 0;  // UINT64_MAX: infinity
  };
  struct SearchDomain {
    std::string name;
    uint64_t expires = 0;
  };

  RouterDiscovery(Link& link, RouterCounters& counters);
  // SLAAC on: solicit routers and form addresses from what they advertise.
  void start(SlaacIid iid);
  // Forget every router, prefix and address (a new configuration).
  void stop();
  bool active() const { return active_; }

  // A router advertisement (ICMPv6 checked, hop limit 255 and code 0 already).
  void receive(const Ip6Received& info, const uint8_t* message, std::size_t len);

  // The first default router (§6.3.6, without reachability yet), if any.
  std::optional<ip6::Addr> default_router() const;
  // The length of the longest on-link prefix holding `a`; -1 when none does.
  int on_link_length(const ip6::Addr& a) const;
  // The MTU an advertisement gave (0: none).
  uint32_t mtu() const { return mtu_; }
  const std::vector<Router>& routers() const { return routers_; }
  const std::vector<OnLink>& prefixes() const { return prefixes_; }
  // RFC 8106: from advertisements, in the order they came, expired ones gone.
  const std::vector<DnsServer>& dns_servers() const { return dns_servers_; }
  const std::vector<SearchDomain>& search_domains() const { return search_domains_; }
  Slaac& slaac() { return slaac_; }
  const Slaac& slaac() const { return slaac_; }

  void poll(uint64_t now);
  uint64_t next_deadline() const;

 private:
  void solicit();
  void update_router(const ip6::Addr& router, uint16_t lifetime_s, uint64_t now);
  void update_prefix(const PrefixInfo& p, uint64_t now);
  void update_mtu(uint32_t mtu);
  // RFC 8106 §5.3.1; true when the lists changed.
  bool update_dns(const RaRepr& ra, uint64_t now);
  void print_dns() const;

  Link& link_;
  RouterCounters& counters_;
  Slaac slaac_;
  bool active_ = false;
  int solicitations_ = 0;
  uint64_t solicit_at_ = UINT64_MAX;
  uint32_t mtu_ = 0;
  std::vector<Router> routers_;
  std::vector<OnLink> prefixes_;
  std::vector<DnsServer> dns_servers_;
  std::vector<SearchDomain> search_domains_;
};

}  // namespace net
