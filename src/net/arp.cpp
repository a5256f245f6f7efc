#include "arp.hpp"

#include <os>

#include "bytes.hpp"

namespace keel::net {
namespace {
uint64_t now_ns() { return uint64_t(os::uptime().count()); }
uint64_t ns(std::chrono::nanoseconds d) { return uint64_t(d.count()); }
}  // namespace

Arp::Arp(Ethernet& ethernet, ::net::ArpCounters& counters)
    : ethernet_(ethernet), counters_(counters) {
  cache_.reserve(max_entries);
}

Arp::~Arp() { os::Timers::stop(timer_); }

void Arp::receive(::net::PacketPtr packet) {
  if (packet->size() < arp::packet_size) {
    ++counters_.drop_truncated;
    return;
  }
  const uint8_t* p = packet->data();
  uint16_t op = load16(p + 6);
  if (load16(p) != arp::hardware_ethernet || load16(p + 2) != ethernet::type_ip4 || p[4] != 6 ||
      p[5] != 4 || (op != arp::op_request && op != arp::op_reply)) {
    ++counters_.drop_bad_format;
    return;
  }
  Mac sender_mac = Mac::from(p + 8);
  Ip sender_ip = Ip::from_bytes(p + 14);
  Ip target_ip = Ip::from_bytes(p + 24);
  ++(op == arp::op_request ? counters_.rx_requests : counters_.rx_replies);

  if (sender_mac.is_multicast() || sender_mac.is_zero() || sender_mac == ethernet_.mac() ||
      sender_ip.is_broadcast() || sender_ip.is_multicast()) {
    ++counters_.drop_bad_sender;
    return;
  }
  if (!address_.is_any() && sender_ip == address_) {
    ++counters_.address_conflicts;
    return;
  }
  bool for_us = !address_.is_any() && target_ip == address_;
  uint64_t now = now_ns();
  // RFC 826 "merge": refresh an entry we already have. A probe (sender
  // 0.0.0.0, RFC 5227 §2.1.1) says nothing about the sender's address.
  if (!sender_ip.is_any()) {
    auto it = cache_.find(sender_ip.value);
    if (it != cache_.end()) {
      Entry& entry = it->second;
      if (entry.resolved && entry.mac != sender_mac && now - entry.changed_ns < ns(min_change_interval)) {
        ++counters_.drop_rate_limited;
        return;
      }
      update(entry, sender_mac, now);
    } else if (for_us && op == arp::op_request) {
      if (Entry* entry = insert(sender_ip, now)) update(*entry, sender_mac, now);
    }
  }
  if (for_us && op == arp::op_request && send(arp::op_reply, sender_mac, sender_mac, sender_ip))
    ++counters_.tx_replies;
}

void Arp::update(Entry& entry, Mac mac, uint64_t now) {
  if (!entry.resolved || entry.mac != mac) entry.changed_ns = now;
  entry.mac = mac;
  entry.resolved = true;
  entry.requests = 0;
  entry.expires_ns = now + ns(entry_lifetime);
  queued_ -= entry.queue.size();
  for (auto& packet : entry.queue) ethernet_.transmit(std::move(packet), mac, ethernet::type_ip4);
  entry.queue.clear();
}

Arp::Entry* Arp::insert(Ip ip, uint64_t now) {
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

void Arp::transmit(::net::PacketPtr ip_packet, Ip next_hop) {
  if (next_hop.is_broadcast()) {
    ethernet_.transmit(std::move(ip_packet), Mac::broadcast(), ethernet::type_ip4);
    return;
  }
  if (next_hop.is_multicast()) {
    // RFC 1112 §6.4: 01:00:5e + the low 23 bits of the group.
    uint32_t v = next_hop.value;
    Mac mac{{0x01, 0x00, 0x5e, uint8_t((v >> 16) & 0x7f), uint8_t(v >> 8), uint8_t(v)}};
    ethernet_.transmit(std::move(ip_packet), mac, ethernet::type_ip4);
    return;
  }
  uint64_t now = now_ns();
  auto it = cache_.find(next_hop.value);
  if (it != cache_.end() && it->second.resolved && it->second.expires_ns > now) {
    ethernet_.transmit(std::move(ip_packet), it->second.mac, ethernet::type_ip4);
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
    if (send(arp::op_request, Mac::broadcast(), Mac{}, next_hop)) ++counters_.tx_requests;
    arm_timer();
  }
}

void Arp::set_address(Ip address) {
  address_ = address;
  if (address.is_any()) return;
  // RFC 5227 §3 announcement: a request with sender = target = our address.
  if (send(arp::op_request, Mac::broadcast(), Mac{}, address)) ++counters_.tx_gratuitous;
}

std::optional<Arp::Mac> Arp::lookup(Ip ip) const {
  auto it = cache_.find(ip.value);
  if (it == cache_.end() || !it->second.resolved) return std::nullopt;
  return it->second.mac;
}

bool Arp::send(uint16_t op, Mac eth_dst, Mac target_mac, Ip target_ip) {
  ::net::PacketPtr packet = allocate_ ? allocate_() : nullptr;
  uint8_t* p = packet ? packet->append(arp::packet_size) : nullptr;
  if (!p) return false;
  store16(p, arp::hardware_ethernet);
  store16(p + 2, ethernet::type_ip4);
  p[4] = 6;
  p[5] = 4;
  store16(p + 6, op);
  ethernet_.mac().write(p + 8);
  address_.write(p + 14);
  target_mac.write(p + 18);
  target_ip.write(p + 24);
  ethernet_.transmit(std::move(packet), eth_dst, ethernet::type_arp);
  return true;
}

void Arp::drop_queue(Entry& entry) {
  counters_.drop_unresolved += entry.queue.size();
  queued_ -= entry.queue.size();
  entry.queue.clear();
}

void Arp::arm_timer() {
  if (timer_ != os::Timers::invalid_id) return;
  timer_ = os::Timers::oneshot(retry_interval, [this](os::Timers::id_t) {
    timer_ = os::Timers::invalid_id;
    on_timer();
  });
}

void Arp::on_timer() {
  bool pending = false;
  uint64_t now = now_ns();
  for (auto it = cache_.begin(); it != cache_.end();) {
    Entry& entry = it->second;
    if (entry.resolved) {
      // Expired entries go; live ones stay until their time.
      if (entry.expires_ns <= now) {
        it = cache_.erase(it);
        continue;
      }
    } else if (entry.requests >= max_requests) {
      drop_queue(entry);
      it = cache_.erase(it);
      continue;
    } else {
      ++entry.requests;
      if (send(arp::op_request, Mac::broadcast(), Mac{}, Ip{it->first})) ++counters_.tx_requests;
      pending = true;
    }
    ++it;
  }
  if (pending) arm_timer();
}

}  // namespace keel::net
