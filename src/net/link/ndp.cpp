#include "ndp.hpp"

#include <algorithm>
#include <cstring>

#include "link.hpp"
#include "net/ip6/addr.hpp"
#include "net/ip6/ip6.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

constexpr uint32_t target_at = 8;  // RFC 4861 §4.3, §4.4: the target after 8 bytes
constexpr uint64_t never = UINT64_MAX;

ip6::Addr read_addr(const uint8_t* p) {
  ip6::Addr a;
  std::memcpy(a.bytes.data(), p, a.bytes.size());
  return a;
}

}  // namespace

Ndp::Ndp(Link& link, NdpCounters& counters) : link_(link), counters_(counters) {}

void Ndp::receive(const Ip6Received& info, const uint8_t* message, std::size_t len) {
  if (message[0] == wire::icmp6::neighbor_solicitation) {
    receive_solicitation(info, message, len);
  } else {
    receive_advertisement(info, message, len);
  }
}

bool Ndp::find_mac_option(const uint8_t* m, std::size_t len, std::size_t fixed, uint8_t type,
                          std::optional<ethernet::Addr>& mac) const {
  for (std::size_t i = fixed; i < len;) {
    if (i + 2 > len) return false;
    std::size_t size = std::size_t(m[i + 1]) * wire::nd::option_unit;
    if (size == 0 || i + size > len) return false;  // §7.1.1: a zero length is invalid
    if (m[i] == type && size >= wire::nd::mac_option_size) mac = ethernet::Addr::from(m + i + 2);
    i += size;
  }
  return true;
}

// RFC 4861 §7.1.1 (validity) and §7.2.3 (what a solicitation does).
void Ndp::receive_solicitation(const Ip6Received& info, const uint8_t* m, std::size_t len) {
  ++counters_.rx_solicitations;
  const wire::Ip6Repr& ip = info.header;
  std::optional<ethernet::Addr> mac;
  if (len < wire::nd::ns_size || ip6addr::is_multicast(read_addr(m + target_at)) ||
      !find_mac_option(m, len, wire::nd::ns_size, wire::nd::option_source_mac, mac)) {
    ++counters_.drop_bad_format;
    return;
  }
  ip6::Addr target = read_addr(m + target_at);
  if (ip.src.is_any() && (ip.dst != ip6addr::solicited_node(target) || mac)) {
    ++counters_.drop_bad_format;
    return;
  }
  if (is_tentative(target)) {
    // RFC 4862 §5.4.3: another node's detection for the same address means
    // a duplicate; an ordinary solicitation for a tentative one is ignored.
    if (ip.src.is_any()) {
      finish_dad(target, false);
    } else {
      ++counters_.drop_not_our_target;
    }
    return;
  }
  if (!link_.has_address6(target)) {
    ++counters_.drop_not_our_target;
    return;
  }
  if (ip.src.is_any()) {
    // Another node's duplicate address detection for our address: §7.2.4
    // says answer all nodes, so it gives the address up (RFC 4862 §5.4.3).
    ++counters_.address_conflicts;
    advertise(target, ip6addr::all_nodes(), false);
    return;
  }
  if (mac && !mac->is_multicast()) learn(ip.src, *mac);
  advertise(target, ip.src, true);
}

void Ndp::learn(const ip6::Addr& neighbour, ethernet::Addr mac) {
  Entry* e = find(neighbour);
  if (!e) e = insert(neighbour);
  if (e && (e->state == State::incomplete || e->mac != mac)) set_mac(*e, mac, State::stale);
}

// RFC 4861 §7.1.2 (validity) and §7.2.5 (what an advertisement does).
void Ndp::receive_advertisement(const Ip6Received& info, const uint8_t* m, std::size_t len) {
  ++counters_.rx_advertisements;
  std::optional<ethernet::Addr> mac;
  bool solicited = len >= wire::nd::na_size && (m[4] & wire::nd::na_solicited);
  if (len < wire::nd::na_size || ip6addr::is_multicast(read_addr(m + target_at)) ||
      (solicited && ip6addr::is_multicast(info.header.dst)) ||
      !find_mac_option(m, len, wire::nd::na_size, wire::nd::option_target_mac, mac) ||
      (mac && mac->is_multicast())) {
    ++counters_.drop_bad_format;
    return;
  }
  ip6::Addr target = read_addr(m + target_at);
  if (is_tentative(target)) {
    finish_dad(target, false);  // RFC 4862 §5.4.4: someone has it
    return;
  }
  if (link_.has_address6(target)) {
    ++counters_.address_conflicts;  // someone else claims our address
    return;
  }
  Entry* e = find(target);
  if (!e) {
    ++counters_.drop_no_entry;  // never creates one (§7.2.5)
    return;
  }
  if (e->state == State::incomplete) {
    if (!mac) {
      ++counters_.drop_bad_format;
      return;
    }
    set_mac(*e, *mac, solicited ? State::reachable : State::stale);
    return;
  }
  bool override = m[4] & wire::nd::na_override;
  bool differs = mac && *mac != e->mac;
  if (!override && differs) {
    if (e->state == State::reachable) {
      e->state = State::stale;
      e->timer_ns = never;
    }
    return;
  }
  if (solicited) {
    set_mac(*e, mac ? *mac : e->mac, State::reachable);
  } else if (differs) {
    set_mac(*e, *mac, State::stale);
  }
}

Ndp::Entry* Ndp::find(const ip6::Addr& a) {
  for (Entry& e : cache_)
    if (e.address == a) return &e;
  return nullptr;
}

Ndp::Entry* Ndp::insert(const ip6::Addr& a) {
  if (cache_.size() < max_entries) {
    cache_.emplace_back();
    cache_.back().address = a;
    return &cache_.back();
  }
  Entry* victim = nullptr;
  for (Entry& e : cache_) {
    if (e.state == State::incomplete || !e.queue.empty()) continue;
    if (!victim || e.confirmed_ns < victim->confirmed_ns) victim = &e;
  }
  if (!victim) {
    ++counters_.drop_cache_full;
    return nullptr;
  }
  ++counters_.cache_evictions;
  *victim = Entry{};
  victim->address = a;
  return victim;
}

void Ndp::set_mac(Entry& e, ethernet::Addr mac, State state) {
  uint64_t now = link_.now();
  e.mac = mac;
  e.state = state;
  e.confirmed_ns = now;
  e.probes = 0;
  e.timer_ns = state == State::reachable ? now + reachable_time_ns : never;
  if (state == State::reachable) schedule(e.timer_ns);
  queued_ -= e.queue.size();
  std::vector<PacketPtr> waiting;
  waiting.swap(e.queue);  // (transmitting may reach back into the cache)
  for (PacketPtr& p : waiting) link_.transmit_frame(std::move(p), mac, wire::ethertype_ip6);
}

void Ndp::transmit(PacketPtr packet, const ip6::Addr& next_hop) {
  uint64_t now = link_.now();
  Entry* e = find(next_hop);
  if (e && e->state != State::incomplete) {
    if (e->state == State::stale && e->timer_ns == never) {
      e->timer_ns = now + delay_first_probe_ns;  // §7.3.3: DELAY, then probe
      schedule(e->timer_ns);
    }
    link_.transmit_frame(std::move(packet), e->mac, wire::ethertype_ip6);
    return;
  }
  bool fresh = !e;
  if (fresh) e = insert(next_hop);
  if (!e || e->queue.size() >= max_queued_per_entry || queued_ >= max_queued_total) {
    ++counters_.drop_queue_full;
    return;
  }
  e->queue.push_back(std::move(packet));
  ++queued_;
  ++counters_.queued;
  if (fresh) {
    e->probes = 1;
    e->timer_ns = now + retrans_timer_ns;
    schedule(e->timer_ns);
    solicit(next_hop, nullptr, nullptr);
  }
}

void Ndp::drop_queue(Entry& e) {
  counters_.drop_unresolved += e.queue.size();
  queued_ -= e.queue.size();
  e.queue.clear();
}

void Ndp::clear() {
  for (Entry& e : cache_) drop_queue(e);
  cache_.clear();
  tentative_.clear();
}

bool Ndp::is_tentative(const ip6::Addr& a) const {
  return std::any_of(tentative_.begin(), tentative_.end(),
                     [&](const Tentative& t) { return t.address == a; });
}

void Ndp::start_dad(const ip6::Addr& address) {
  if (is_tentative(address)) return;
  uint64_t deadline = link_.now() + retrans_timer_ns;
  tentative_.push_back({address, deadline});
  schedule(deadline);
  link_.addresses6_changed();  // RFC 4862 §5.4.2: join its solicited-node group first
  solicit(address, nullptr, nullptr, true);
}

void Ndp::finish_dad(const ip6::Addr& address, bool unique) {
  std::erase_if(tentative_, [&](const Tentative& t) { return t.address == address; });
  if (!unique) ++counters_.address_conflicts;
  link_.dad_finished(address, unique);  // (may start another detection)
  link_.addresses6_changed();
}

void Ndp::schedule(uint64_t at) {
  if (at < next_deadline_) {
    next_deadline_ = at;
    link_.wake_by(at);
  }
}

// The states' timers (§7.3.3): INCOMPLETE retries then gives up, REACHABLE
// turns STALE, a used STALE entry (DELAY) starts probing, PROBE gives up.
void Ndp::poll(uint64_t now) {
  if (now < next_deadline_) return;
  next_deadline_ = never;
  std::vector<ip6::Addr> done;
  for (const Tentative& t : tentative_)
    if (now >= t.deadline) done.push_back(t.address);
  for (const ip6::Addr& a : done) finish_dad(a, true);
  for (const Tentative& t : tentative_) next_deadline_ = std::min(next_deadline_, t.deadline);
  std::vector<PacketPtr> unresolved;  // answered once the cache is no longer walked
  for (std::size_t i = 0; i < cache_.size();) {
    Entry& e = cache_[i];
    bool gone = false;
    if (now >= e.timer_ns) {
      switch (e.state) {
        case State::incomplete:
          if (e.probes >= max_multicast_solicit) {
            for (PacketPtr& p : e.queue) unresolved.push_back(std::move(p));
            drop_queue(e);
            gone = true;
            break;
          }
          ++e.probes;
          e.timer_ns = now + retrans_timer_ns;
          solicit(e.address, nullptr, nullptr);
          break;
        case State::reachable:
          e.state = State::stale;
          e.timer_ns = never;
          break;
        case State::stale:
        case State::probe:
          if (e.state == State::probe && e.probes >= max_unicast_solicit) {
            ++counters_.drop_unreachable;  // §7.3.3: the neighbour is gone
            gone = true;
            break;
          }
          e.state = State::probe;
          ++e.probes;
          e.timer_ns = now + retrans_timer_ns;
          solicit(e.address, &e.address, &e.mac);
          break;
      }
    }
    if (gone) {
      cache_[i] = std::move(cache_.back());
      cache_.pop_back();
      continue;
    }
    next_deadline_ = std::min(next_deadline_, e.timer_ns);
    ++i;
  }
  if (next_deadline_ != never) link_.wake_by(next_deadline_);
  for (const PacketPtr& p : unresolved) link_.neighbour_unreachable(*p);
}

std::optional<ethernet::Addr> Ndp::lookup(const ip6::Addr& a) const {
  auto s = state(a);
  if (!s || *s == State::incomplete) return std::nullopt;
  for (const Entry& e : cache_)
    if (e.address == a) return e.mac;
  return std::nullopt;
}

std::optional<Ndp::State> Ndp::state(const ip6::Addr& a) const {
  for (const Entry& e : cache_)
    if (e.address == a) return e.state;
  return std::nullopt;
}

}  // namespace net
