#include "arp.hpp"

#include "link.hpp"
#include "net/wire/ethernet.hpp"

namespace net {

using wire::ArpRepr;

Arp::Arp(Link& link, ArpCounters& counters) : link_(link), counters_(counters) {
  cache_.reserve(max_entries);
}

void Arp::receive(PacketPtr packet, uint64_t now) {
  ArpRepr arp;
  switch (ArpRepr::parse({packet->data(), packet->size()}, arp)) {
    case wire::ArpError::none:
      break;
    case wire::ArpError::truncated:
      ++counters_.drop_truncated;
      return;
    case wire::ArpError::bad_format:
      ++counters_.drop_bad_format;
      return;
  }
  ++(arp.op == ArpRepr::request ? counters_.rx_requests : counters_.rx_replies);
  ip4::Addr address = link_.address();
  if (arp.sender_mac.is_multicast() || arp.sender_mac.is_zero() || arp.sender_mac == link_.mac() ||
      arp.sender_ip.is_broadcast() || arp.sender_ip.is_multicast()) {
    ++counters_.drop_bad_sender;
    return;
  }
  if (!address.is_any() && arp.sender_ip == address) {
    ++counters_.address_conflicts;
    return;
  }
  bool for_us = !address.is_any() && arp.target_ip == address;
  // RFC 826 "merge": refresh an entry we already have. A probe (sender
  // 0.0.0.0, RFC 5227 §2.1.1) says nothing about the sender's address.
  if (!arp.sender_ip.is_any()) {
    auto it = cache_.find(arp.sender_ip.value);
    if (it != cache_.end()) {
      Entry& entry = it->second;
      if (entry.resolved && entry.mac != arp.sender_mac &&
          now - entry.changed_ns < min_change_interval_ns) {
        ++counters_.drop_rate_limited;
        return;
      }
      update(entry, arp.sender_mac, now);
    } else if (for_us && arp.op == ArpRepr::request) {
      if (Entry* entry = insert(arp.sender_ip, now)) update(*entry, arp.sender_mac, now);
    }
  }
  if (for_us && arp.op == ArpRepr::request &&
      send(ArpRepr::reply, arp.sender_mac, arp.sender_mac, arp.sender_ip)) {
    ++counters_.tx_replies;
  }
}

void Arp::update(Entry& entry, ethernet::Addr mac, uint64_t now) {
  if (!entry.resolved || entry.mac != mac) entry.changed_ns = now;
  entry.mac = mac;
  entry.resolved = true;
  entry.requests = 0;
  entry.expires_ns = now + entry_lifetime_ns;
  queued_ -= entry.queue.size();
  std::vector<PacketPtr> waiting;
  waiting.swap(entry.queue);  // transmitting may reach back into the cache
  for (auto& packet : waiting) link_.transmit_frame(std::move(packet), mac, wire::ethertype_ip4);
}

Arp::Entry* Arp::insert(ip4::Addr ip, uint64_t now) {
  if (cache_.size() >= max_entries) {
    // Evict the entry closest to expiry; never one with packets waiting.
    auto victim = cache_.end();
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (!it->second.queue.empty()) continue;
      if (victim == cache_.end() || it->second.expires_ns < victim->second.expires_ns) victim = it;
    }
    if (victim == cache_.end()) return nullptr;
    cache_.erase(victim);
    ++counters_.cache_evictions;
  }
  Entry& entry = cache_[ip.value];
  entry.expires_ns = now;
  return &entry;
}

void Arp::transmit(PacketPtr ip_packet, ip4::Addr next_hop, uint64_t now) {
  auto it = cache_.find(next_hop.value);
  if (it != cache_.end() && it->second.resolved && it->second.expires_ns > now) {
    link_.transmit_frame(std::move(ip_packet), it->second.mac, wire::ethertype_ip4);
    return;
  }
  Entry* entry = it != cache_.end() ? &it->second : insert(next_hop, now);
  if (!entry || entry->queue.size() >= max_queued_per_entry || queued_ >= max_queued_total) {
    ++counters_.drop_queue_full;
    return;
  }
  bool first = entry->resolved || entry->requests == 0;
  entry->resolved = false;  // expired: resolve again
  entry->queue.push_back(std::move(ip_packet));
  ++queued_;
  ++counters_.queued;
  if (first) {
    entry->requests = 1;
    entry->retry_ns = now + retry_interval_ns;
    if (send(ArpRepr::request, ethernet::Addr::broadcast(), ethernet::Addr{}, next_hop)) {
      ++counters_.tx_requests;
    }
    if (entry->retry_ns < next_retry_ns_) {
      next_retry_ns_ = entry->retry_ns;
      link_.wake_by(next_retry_ns_);
    }
  }
}

void Arp::announce() {
  // RFC 5227 §3 announcement: a request with sender = target = our address.
  ip4::Addr address = link_.address();
  if (address.is_any()) return;
  if (send(ArpRepr::request, ethernet::Addr::broadcast(), ethernet::Addr{}, address)) {
    ++counters_.tx_gratuitous;
  }
}

void Arp::clear() {
  for (auto& [ip, entry] : cache_) drop_queue(entry);
  cache_.clear();
  next_retry_ns_ = UINT64_MAX;
}

std::optional<ethernet::Addr> Arp::lookup(ip4::Addr ip) const {
  auto it = cache_.find(ip.value);
  if (it == cache_.end() || !it->second.resolved) return std::nullopt;
  return it->second.mac;
}

bool Arp::send(uint16_t op, ethernet::Addr eth_dst, ethernet::Addr target_mac,
               ip4::Addr target_ip) {
  PacketPtr packet = link_.allocate();
  uint8_t* p = packet ? packet->append(ArpRepr::size) : nullptr;
  if (!p) return false;
  ArpRepr{op, link_.mac(), link_.address(), target_mac, target_ip}.emit(
      std::span<uint8_t, ArpRepr::size>(p, ArpRepr::size));
  link_.transmit_frame(std::move(packet), eth_dst, wire::ethertype_arp);
  return true;
}

void Arp::drop_queue(Entry& entry) {
  counters_.drop_unresolved += entry.queue.size();
  queued_ -= entry.queue.size();
  entry.queue.clear();
}

void Arp::poll(uint64_t now) {
  next_retry_ns_ = UINT64_MAX;
  for (auto it = cache_.begin(); it != cache_.end();) {
    Entry& entry = it->second;
    if (entry.resolved) {
      if (entry.expires_ns <= now) {  // expired entries go; live ones stay
        it = cache_.erase(it);
        continue;
      }
    } else if (entry.retry_ns <= now) {
      if (entry.requests >= max_requests) {
        drop_queue(entry);
        it = cache_.erase(it);
        continue;
      }
      ++entry.requests;
      entry.retry_ns = now + retry_interval_ns;
      if (send(ArpRepr::request, ethernet::Addr::broadcast(), ethernet::Addr{},
               ip4::Addr{it->first})) {
        ++counters_.tx_requests;
      }
    }
    if (!entry.resolved && entry.retry_ns < next_retry_ns_) next_retry_ns_ = entry.retry_ns;
    ++it;
  }
}

}  // namespace net
