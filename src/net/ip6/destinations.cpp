#include "destinations.hpp"

#include <algorithm>

namespace net {

const Destinations::Entry* Destinations::find(const ip6::Addr& destination, uint64_t now) const {
  for (const Entry& e : entries_)
    if (e.destination == destination) return now < e.expires() ? &e : nullptr;
  return nullptr;
}

uint32_t Destinations::path_mtu(const ip6::Addr& destination, uint64_t now) const {
  if (entries_.empty()) return 0;
  const Entry* e = find(destination, now);
  return e && now < e->mtu_expires ? e->mtu : 0;
}

Destinations::Entry& Destinations::find_or_insert(const ip6::Addr& destination, uint64_t now) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.destination == destination; });
  return it != entries_.end() ? *it : insert(destination, now);
}

bool Destinations::lower_path_mtu(const ip6::Addr& destination, uint32_t mtu, uint64_t now) {
  Entry& e = find_or_insert(destination, now);
  bool known = now < e.mtu_expires && e.mtu != 0;
  if (known && mtu >= e.mtu) return false;  // RFC 8201 §4: a report never raises it
  e.mtu = mtu;
  e.mtu_expires = now + pmtu_timeout_ns;
  ++counters_.pmtu_updates;
  return true;
}

void Destinations::redirect(const ip6::Addr& destination, InterfaceId interface,
                            const ip6::Addr& next_hop, uint64_t now) {
  Entry& e = find_or_insert(destination, now);
  e.hop = {interface, next_hop};
  e.hop_expires = now + redirect_timeout_ns;
}

std::optional<Destinations::FirstHop> Destinations::first_hop(const ip6::Addr& destination,
                                                              uint64_t now) const {
  if (entries_.empty()) return std::nullopt;
  const Entry* e = find(destination, now);
  if (!e || now >= e->hop_expires) return std::nullopt;
  return e->hop;
}

void Destinations::forget_redirects() {
  for (Entry& e : entries_) e.hop_expires = 0;
}

Destinations::Entry& Destinations::insert(const ip6::Addr& destination, uint64_t now) {
  std::erase_if(entries_, [&](const Entry& e) { return now >= e.expires(); });
  if (entries_.size() >= max_entries) {
    auto first =
        std::min_element(entries_.begin(), entries_.end(),
                         [](const Entry& a, const Entry& b) { return a.expires() < b.expires(); });
    *first = entries_.back();
    entries_.pop_back();
    ++counters_.destination_evictions;
  }
  Entry& e = entries_.emplace_back();
  e.destination = destination;
  return e;
}

}  // namespace net
