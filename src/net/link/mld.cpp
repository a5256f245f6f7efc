#include "mld.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cstring>

#include "link.hpp"
#include "net/ip6/addr.hpp"
#include "net/ip6/ip6.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

namespace mld = wire::mld;
constexpr uint64_t never = UINT64_MAX;
constexpr std::size_t max_resp_at = 4, group_at = 8;  // §5.1

// ff02::16, all MLDv2-capable routers (§5.2.14).
ip6::Addr all_mldv2_routers() {
  ip6::Addr a = ip6addr::all_nodes();
  a.bytes[15] = 0x16;
  return a;
}

// ff02::2, all routers: where MLDv1's Done goes (RFC 2710 §4).
ip6::Addr all_routers() {
  ip6::Addr a = ip6addr::all_nodes();
  a.bytes[15] = 2;
  return a;
}

// §5.1.3: the Maximum Response Delay in milliseconds.
uint64_t max_response_ms(uint16_t code) {
  if (code < mld::exponential_code) return code;
  uint64_t mant = code & 0x0fff, exp = (code >> 12) & 0x07;
  return (mant | 0x1000) << (exp + 3);
}

}  // namespace

Mld::Mld(Link& link, MldCounters& counters) : link_(link), counters_(counters) {}

std::vector<ip6::Addr> Mld::current_groups() const {
  std::vector<ip6::Addr> groups;
  link_.for_each_address6([&](const ip6::Addr& a) {
    ip6::Addr g = ip6addr::solicited_node(a);
    if (groups.size() < max_groups && std::find(groups.begin(), groups.end(), g) == groups.end())
      groups.push_back(g);
  });
  return groups;
}

uint64_t Mld::random_delay(uint64_t max_ns) const {
  uint64_t r = 0;
  if (max_ns == 0 || getrandom(&r, sizeof r, 0) != ssize_t(sizeof r)) return 0;
  return r % max_ns;
}

bool Mld::v1_mode() const { return link_.now() < v1_until_; }

// §6.1: a State Change Report at once (CHANGE_TO_EXCLUDE with no sources:
// joined; CHANGE_TO_INCLUDE: left), and again within the Unsolicited
// Report Interval. In MLDv1 mode (RFC 2710 §4): a Report per group joined,
// again within MLDv1's interval, and a Done per group left.
void Mld::update() {
  if (!link_.ip6_on()) return;
  std::vector<ip6::Addr> now_groups = current_groups();
  std::vector<Record> changes;
  for (const ip6::Addr& g : now_groups)
    if (std::find(groups_.begin(), groups_.end(), g) == groups_.end())
      changes.push_back({mld::change_to_exclude, g});
  for (const ip6::Addr& g : groups_)
    if (std::find(now_groups.begin(), now_groups.end(), g) == now_groups.end())
      changes.push_back({mld::change_to_include, g});
  groups_ = std::move(now_groups);
  if (changes.empty()) return;
  uint64_t interval = unsolicited_report_interval_ns;
  if (v1_mode()) {
    interval = v1_unsolicited_report_interval_ns;
    for (const Record& r : changes)
      send_v1(r.type == mld::change_to_exclude ? wire::icmp6::multicast_listener_report_v1
                                               : wire::icmp6::multicast_listener_done,
              r.group);
    std::erase_if(changes, [](const Record& r) { return r.type != mld::change_to_exclude; });
  } else {
    send(changes);
  }
  changes_ = std::move(changes);
  change_at_ = link_.now() + random_delay(interval);
  link_.wake_by(change_at_);
}

// §6.2, §5.1.14: from a link-local source with hop limit 1, 28 bytes or
// more (24: MLDv1's, §8.1, which switches the interface to MLDv1, §8.2.1).
void Mld::receive(const Ip6Received& info, const uint8_t* m, std::size_t len) {
  ++counters_.rx_queries;
  if (info.header.hop_limit != mld::hop_limit || !ip6addr::is_link_local(info.header.src) ||
      len < mld::query_v1_size) {
    ++counters_.drop_bad_query;
    return;
  }
  uint64_t now = link_.now();
  bool v1_query = len < mld::query_size;
  if (v1_query) {
    ++counters_.rx_v1_queries;
    if (!v1_mode()) {
      // Pending MLDv2 answers and retransmissions go: MLDv1 answers from now on.
      change_at_ = general_at_ = never;
      changes_.clear();
      specific_.clear();
    }
    v1_until_ = now + older_version_querier_timeout_ns;
  }
  ip6::Addr group;
  std::memcpy(group.bytes.data(), m + group_at, group.bytes.size());
  // RFC 2710 §3.4: MLDv1's Maximum Response Delay is in milliseconds as is.
  uint16_t code = wire::load16(m + max_resp_at);
  uint64_t max_ns = (v1_query ? code : max_response_ms(code)) * 1'000'000;
  if (v1_mode()) {
    // RFC 2710 §4: each group of ours its own random delay.
    if (group.is_any()) {
      for (const ip6::Addr& g : groups_) answer_at(g, now + random_delay(max_ns));
    } else if (std::find(groups_.begin(), groups_.end(), group) != groups_.end()) {
      answer_at(group, now + random_delay(max_ns));
    }
    return;
  }
  uint64_t at = now + random_delay(max_ns);
  if (group.is_any()) {
    general_at_ = std::min(general_at_, at);  // §6.2 (1), (2)
    link_.wake_by(general_at_);
    return;
  }
  if (std::find(groups_.begin(), groups_.end(), group) == groups_.end()) return;  // not ours
  answer_at(group, at);
}

// RFC 2710 §4: "If a node receives another node's Report from an interface
// for a multicast address while it has a timer running for that same
// address on that interface, it stops its timer and does not send a Report
// for that address": the pending answer to a query and the repeat of an
// unsolicited report (the Delaying Listener state's one timer) both go.
// The same checks as a query's (§5: hop limit 1, link-local source; 24
// bytes). In MLDv2 mode nothing is suppressed (RFC 3810 §8.2.2: a MAY).
void Mld::receive_report(const Ip6Received& info, const uint8_t* m, std::size_t len) {
  if (info.header.hop_limit != mld::hop_limit || !ip6addr::is_link_local(info.header.src) ||
      len < mld::query_v1_size) {
    ++counters_.drop_bad_report;
    return;
  }
  ip6::Addr group;
  std::memcpy(group.bytes.data(), m + group_at, group.bytes.size());
  if (std::find(groups_.begin(), groups_.end(), group) == groups_.end()) return;  // not ours
  ++counters_.rx_v1_reports;
  if (!v1_mode()) return;
  auto pending = std::erase_if(specific_, [&](const auto& s) { return s.first == group; }) +
                 std::erase_if(changes_, [&](const Record& r) { return r.group == group; });
  counters_.v1_reports_suppressed += pending;
}

void Mld::answer_at(const ip6::Addr& group, uint64_t at) {
  link_.wake_by(at);
  for (auto& [g, when] : specific_) {
    if (g == group) {
      when = std::min(when, at);
      return;
    }
  }
  specific_.emplace_back(group, at);  // at most one per group of ours
}

PacketPtr Mld::start(std::size_t len, uint8_t*& message) {
  PacketPtr p = link_.allocate();
  uint8_t* h = p ? p->append(uint32_t(mld::hop_by_hop_size + len)) : nullptr;
  if (!h) return nullptr;
  std::memset(h, 0, mld::hop_by_hop_size + len);
  h[0] = wire::ip6_next_icmp6;  // hop-by-hop: next header, length 0 (8 bytes)
  h[2] = mld::option_router_alert;
  h[3] = 2;  // value 0: MLD (RFC 2710 §3, RFC 2711)
  h[6] = mld::option_padn;
  message = h + mld::hop_by_hop_size;
  return p;
}

void Mld::finish(PacketPtr p, uint8_t* m, std::size_t len, const ip6::Addr& dst) {
  wire::icmp6_fill_checksum(m, len, link_.link_local(), dst);
  wire::Ip6Repr{link_.link_local(), dst, wire::ip6_next_hop_by_hop, mld::hop_limit,
                uint16_t(mld::hop_by_hop_size + len)}
      .emit(p->push(wire::ip6_header_size));
  link_.transmit_frame(std::move(p), ip6addr::multicast_mac(dst), wire::ethertype_ip6);
}

// §5.2: one report, its records without sources, through the Router Alert
// hop-by-hop header, hop limit 1, from the link-local address.
void Mld::send(const std::vector<Record>& records) {
  if (records.empty()) return;
  std::size_t len = mld::report_header + records.size() * mld::record_size;
  uint8_t* m = nullptr;
  PacketPtr p = start(len, m);
  if (!p) return;
  m[0] = wire::icmp6::multicast_listener_report;
  wire::store16(m + 6, uint16_t(records.size()));
  uint8_t* r = m + mld::report_header;
  for (const Record& record : records) {
    r[0] = record.type;
    std::memcpy(r + 4, record.group.bytes.data(), record.group.bytes.size());
    r += mld::record_size;
  }
  ++counters_.tx_reports;
  finish(std::move(p), m, len, all_mldv2_routers());
}

// RFC 2710 §3: type, code, checksum, Maximum Response Delay (0), reserved,
// the group; a Report goes to the group, a Done to all routers (§4).
void Mld::send_v1(uint8_t type, const ip6::Addr& group) {
  uint8_t* m = nullptr;
  PacketPtr p = start(mld::query_v1_size, m);
  if (!p) return;
  m[0] = type;
  std::memcpy(m + group_at, group.bytes.data(), group.bytes.size());
  bool report = type == wire::icmp6::multicast_listener_report_v1;
  ++(report ? counters_.tx_v1_reports : counters_.tx_v1_dones);
  finish(std::move(p), m, mld::query_v1_size, report ? group : all_routers());
}

void Mld::poll(uint64_t now) {
  bool v1 = v1_mode();
  if (now >= change_at_) {
    change_at_ = never;
    std::vector<Record> again;
    again.swap(changes_);
    if (v1) {
      for (const Record& r : again)
        if (r.type == mld::change_to_exclude)
          send_v1(wire::icmp6::multicast_listener_report_v1, r.group);
    } else {
      send(again);
    }
  }
  if (now >= general_at_) {
    general_at_ = never;
    std::vector<Record> all;
    for (const ip6::Addr& g : groups_) all.push_back({mld::mode_is_exclude, g});
    send(all);
    specific_.clear();  // §6.2 (1): the general answer covers them
  }
  std::vector<Record> due;
  std::erase_if(specific_, [&](const auto& s) {
    if (now < s.second) return false;
    due.push_back({mld::mode_is_exclude, s.first});
    return true;
  });
  if (v1) {
    for (const Record& r : due) send_v1(wire::icmp6::multicast_listener_report_v1, r.group);
  } else {
    send(due);
  }
  uint64_t next = next_deadline();
  if (next != never) link_.wake_by(next);
}

uint64_t Mld::next_deadline() const {
  uint64_t earliest = std::min(change_at_, general_at_);
  for (const auto& s : specific_) earliest = std::min(earliest, s.second);
  return earliest;
}

}  // namespace net
