#include "routers.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "link.hpp"
#include "net/ip6/addr.hpp"
#include "net/ip6/ip6.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

constexpr uint64_t never = UINT64_MAX;
constexpr uint64_t ns_per_s = 1'000'000'000;

// ff02::2, every router on the link (RFC 4291 §2.7.1).
ip6::Addr all_routers() {
  ip6::Addr a = ip6addr::all_nodes();
  a.bytes[15] = 2;
  return a;
}

}  // namespace

RouterDiscovery::RouterDiscovery(Link& link, RouterCounters& counters)
    : link_(link), counters_(counters), slaac_(link, counters) {}

// §6.3.7: the first solicitation after a random delay of up to
// MAX_RTR_SOLICITATION_DELAY, then up to MAX_RTR_SOLICITATIONS in all,
// RTR_SOLICITATION_INTERVAL apart, until an advertisement comes.
void RouterDiscovery::start(SlaacIid iid) {
  stop();
  active_ = true;
  slaac_.set_iid(iid);
  uint32_t jitter = 0;
  if (getrandom(&jitter, sizeof jitter, 0) != ssize_t(sizeof jitter)) jitter = 0;
  solicit_at_ = link_.now() + jitter % max_rtr_solicitation_delay_ns;
  link_.wake_by(solicit_at_);
}

void RouterDiscovery::stop() {
  active_ = false;
  solicitations_ = 0;
  solicit_at_ = never;
  mtu_ = 0;
  routers_.clear();
  prefixes_.clear();
  dns_servers_.clear();
  search_domains_.clear();
  slaac_.clear();
}

// §4.1: from our link-local address with our MAC (§6.3.7 allows it once
// the address is ours; the link-local address is not detected, decision
// 0130), to all routers.
void RouterDiscovery::solicit() {
  PacketPtr p = link_.allocate();
  uint8_t* m = p ? p->append(wire::nd::rs_size + wire::nd::mac_option_size) : nullptr;
  if (!m) return;
  std::memset(m, 0, wire::nd::rs_size);
  m[0] = wire::icmp6::router_solicitation;
  m[wire::nd::rs_size] = wire::nd::option_source_mac;
  m[wire::nd::rs_size + 1] = 1;
  link_.mac().write(m + wire::nd::rs_size + 2);
  ++counters_.tx_solicitations;
  ip6::Addr to = all_routers();
  link_.ndp().send_icmp(std::move(p), link_.link_local(), to, ip6addr::multicast_mac(to));
}

// §6.3.4: what a valid advertisement does.
void RouterDiscovery::receive(const Ip6Received& info, const uint8_t* m, std::size_t len) {
  ++counters_.rx_advertisements;
  if (!active_) {
    ++counters_.drop_not_auto;
    return;
  }
  RaRepr ra;
  switch (parse_router_advertisement(info.header.src, m, len, ra)) {
    case RaError::none:
      break;
    case RaError::bad_source:
      ++counters_.drop_bad_source;
      return;
    case RaError::bad_format:
      ++counters_.drop_bad_format;
      return;
  }
  uint64_t now = link_.now();
  solicit_at_ = never;  // §6.3.7: a router answered
  const ip6::Addr& router = info.header.src;
  update_router(router, ra.router_lifetime_s, now);
  if (ra.source_mac) link_.ndp().learn(router, *ra.source_mac);
  if (ra.mtu) update_mtu(*ra.mtu);
  counters_.drop_prefix_options += ra.prefixes_dropped;
  for (std::size_t i = 0; i < ra.prefix_count; ++i) {
    const PrefixInfo& p = ra.prefixes[i];
    if (ip6addr::is_link_local(p.prefix)) continue;  // §6.3.4, RFC 4862 §5.5.3 (b)
    if (p.on_link) update_prefix(p, now);
    if (p.autonomous) slaac_.prefix(p, now);
  }
  counters_.drop_bad_dns_option += ra.dns_options_ignored;
  if (update_dns(ra, now)) print_dns();
  link_.wake_by(next_deadline());
}

void RouterDiscovery::update_router(const ip6::Addr& router, uint16_t lifetime_s, uint64_t now) {
  auto it = std::find_if(routers_.begin(), routers_.end(),
                         [&](const Router& r) { return r.address == router; });
  if (lifetime_s == 0) {  // §6.3.4: no longer a default router
    if (it != routers_.end()) routers_.erase(it);
    return;
  }
  uint64_t expires = now + lifetime_s * ns_per_s;
  if (it != routers_.end()) {
    it->expires = expires;
  } else if (routers_.size() < max_routers) {
    routers_.push_back({router, expires});
  } else {
    ++counters_.drop_routers_full;
  }
}

void RouterDiscovery::update_prefix(const PrefixInfo& p, uint64_t now) {
  auto it = std::find_if(prefixes_.begin(), prefixes_.end(), [&](const OnLink& o) {
    return o.length == p.length && o.prefix == p.prefix;
  });
  if (p.valid_s == 0) {  // §6.3.4: time the prefix out at once
    if (it != prefixes_.end()) prefixes_.erase(it);
    return;
  }
  uint64_t expires = p.valid_s == wire::nd::infinite_lifetime ? never : now + p.valid_s * ns_per_s;
  if (it != prefixes_.end()) {
    it->expires = expires;
  } else if (prefixes_.size() < max_prefixes) {
    prefixes_.push_back({p.prefix, p.length, expires});
  } else {
    ++counters_.drop_prefixes_full;
  }
}

// §6.3.4: an MTU under IPv6's minimum (RFC 8200 §5) or over what the link
// carries is ignored.
void RouterDiscovery::update_mtu(uint32_t mtu) {
  if (mtu < wire::ip6_min_mtu || mtu > link_.mtu()) {
    ++counters_.drop_bad_mtu;
    return;
  }
  mtu_ = mtu;
}

namespace {

// One entry of a bounded list of things with lifetimes (RFC 8106 §5.3.1):
// lifetime 0 removes it, another sets its expiry; a newcomer to a full list
// takes the place of the entry that expires first if it outlives it.
// True when the list changed (an entry added or removed).
template <class List, class Key>
bool update_entry(List& list, std::size_t max, const Key& key, uint32_t lifetime_s, uint64_t now,
                  uint64_t& evictions, auto same) {
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return same(e, key); });
  if (lifetime_s == 0) {
    if (it == list.end()) return false;
    list.erase(it);
    return true;
  }
  uint64_t expires =
      lifetime_s == wire::nd::infinite_lifetime ? never : now + lifetime_s * ns_per_s;
  if (it != list.end()) {
    it->expires = expires;
    return false;
  }
  if (list.size() >= max) {
    auto first = std::min_element(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.expires < b.expires;
    });
    if (first->expires >= expires) return false;
    list.erase(first);
    ++evictions;
  }
  list.push_back({key, expires});
  return true;
}

}  // namespace

bool RouterDiscovery::update_dns(const RaRepr& ra, uint64_t now) {
  bool changed = false;
  for (std::size_t i = 0; i < ra.dns_server_count; ++i)
    changed |= update_entry(dns_servers_, max_dns_servers, ra.dns_servers[i].address,
                            ra.dns_servers[i].lifetime_s, now, counters_.dns_evictions,
                            [](const DnsServer& e, const ip6::Addr& a) { return e.address == a; });
  for (std::size_t i = 0; i < ra.search_domain_count; ++i)
    changed |=
        update_entry(search_domains_, max_search_domains, ra.search_domains[i].name,
                     ra.search_domains[i].lifetime_s, now, counters_.dns_evictions,
                     [](const SearchDomain& e, const std::string& n) { return e.name == n; });
  return changed;
}

// "net0: DNS 2001:db8::53 search example.net (router advertisement)".
void RouterDiscovery::print_dns() const {
  std::string text;
  for (const DnsServer& d : dns_servers_) text += " " + Address(d.address).to_string();
  if (!search_domains_.empty()) text += " search";
  for (const SearchDomain& d : search_domains_) text += " " + d.name;
  std::printf("%s: DNS%s (router advertisement)\n", link_.name().c_str(),
              text.empty() ? " none" : text.c_str());
}

std::optional<ip6::Addr> RouterDiscovery::default_router() const {
  if (routers_.empty()) return std::nullopt;
  return routers_.front().address;
}

int RouterDiscovery::on_link_length(const ip6::Addr& a) const {
  int longest = -1;
  for (const OnLink& o : prefixes_)
    if (ip6addr::in_prefix(a, o.prefix, o.length)) longest = std::max(longest, int(o.length));
  return longest;
}

void RouterDiscovery::poll(uint64_t now) {
  if (now >= solicit_at_) {
    solicit();
    ++solicitations_;
    solicit_at_ =
        solicitations_ < max_rtr_solicitations ? now + rtr_solicitation_interval_ns : never;
  }
  std::erase_if(routers_, [&](const Router& r) { return now >= r.expires; });
  std::erase_if(prefixes_, [&](const OnLink& o) { return now >= o.expires; });
  std::size_t dns_before = dns_servers_.size() + search_domains_.size();
  std::erase_if(dns_servers_, [&](const DnsServer& d) { return now >= d.expires; });
  std::erase_if(search_domains_, [&](const SearchDomain& d) { return now >= d.expires; });
  if (dns_servers_.size() + search_domains_.size() != dns_before) print_dns();
  slaac_.poll(now);
  uint64_t next = next_deadline();
  if (next != never) link_.wake_by(next);
}

uint64_t RouterDiscovery::next_deadline() const {
  uint64_t earliest = std::min(solicit_at_, slaac_.next_deadline());
  for (const Router& r : routers_) earliest = std::min(earliest, r.expires);
  for (const OnLink& o : prefixes_) earliest = std::min(earliest, o.expires);
  for (const DnsServer& d : dns_servers_) earliest = std::min(earliest, d.expires);
  for (const SearchDomain& d : search_domains_) earliest = std::min(earliest, d.expires);
  return earliest;
}

}  // namespace net
