// Multicast Listener Discovery version 2 (RFC 3810) for a host on one
// interface: the groups it listens to are the solicited-node groups of its
// addresses (tentative ones included, RFC 4862 §5.4.2; all-nodes is never
// reported, §6). A change (an address added or gone) is reported at once
// and once more within the Unsolicited Report Interval (§6.1, Robustness 2);
// queries from a link-local source with hop limit 1 are answered after a
// random part of their Maximum Response Delay (§6.2): a General Query with
// every group, a Multicast Address Specific one with that group if ours.
// Reports go to ff02::16 from the link-local address with hop limit 1 and a
// Router Alert (§5, §5.2.13). An MLDv1 query switches the interface to
// MLDv1 (§8.2.1) for the Older Version Querier Present Timeout: then each
// group is reported alone in an MLDv1 Report to the group itself, a group
// left is announced by a Done to ff02::2 (RFC 2710 §4), and every query is
// answered per group after its own random delay, unless another host's
// MLDv1 Report for the group is heard first (report suppression, RFC 2710
// §4); in MLDv2 mode others' reports change nothing (RFC 3810 §8.2.2 makes
// suppression a MAY, and MLDv2 has none).
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/counters.hpp>
#include <net/packet.hpp>
#include <vector>

namespace net {

class Link;
struct Ip6Received;

class Mld {
 public:
  static constexpr uint64_t unsolicited_report_interval_ns = 1'000'000'000;  // §9.11
  // §9.12: Robustness Variable (2) × Query Interval (125 s) + Query
  // Response Interval (10 s), the defaults (an MLDv1 query carries neither).
  static constexpr uint64_t older_version_querier_timeout_ns = 260'000'000'000;
  // RFC 2710 §7.10: MLDv1's Unsolicited Report Interval.
  static constexpr uint64_t v1_unsolicited_report_interval_ns = 10'000'000'000;
  // Groups one report carries (the interface has fewer: its addresses' groups).
  static constexpr std::size_t max_groups = 32;

  Mld(Link& link, MldCounters& counters);
  // Our addresses changed: report the groups joined and left.
  void update();
  // A query (ICMPv6 checked), `len` bytes at `message`.
  void receive(const Ip6Received& info, const uint8_t* message, std::size_t len);
  // Another host's MLDv1 Report (ICMPv6 checked).
  void receive_report(const Ip6Received& info, const uint8_t* message, std::size_t len);
  const std::vector<ip6::Addr>& groups() const { return groups_; }
  // Host Compatibility Mode (§8.2.1): MLDv1 while an MLDv1 querier was heard recently.
  bool v1_mode() const;

  void poll(uint64_t now);
  uint64_t next_deadline() const;

 private:
  struct Record {
    uint8_t type;
    ip6::Addr group;
  };
  std::vector<ip6::Addr> current_groups() const;
  void send(const std::vector<Record>& records);
  // RFC 2710 §3: a Report (to the group) or a Done (to all routers) for one group.
  void send_v1(uint8_t type, const ip6::Addr& group);
  // A buffer with the Router Alert hop-by-hop header and room for an MLD
  // message of `len` bytes (at `message`); null when none is free.
  PacketPtr start(std::size_t len, uint8_t*& message);
  // Checksum, IPv6 header (hop limit 1, from the link-local address), to `dst`.
  void finish(PacketPtr p, uint8_t* message, std::size_t len, const ip6::Addr& dst);
  // A group's answer due at `at` (or sooner, if one is already due sooner).
  void answer_at(const ip6::Addr& group, uint64_t at);
  uint64_t random_delay(uint64_t max_ns) const;

  Link& link_;
  MldCounters& counters_;
  std::vector<ip6::Addr> groups_;  // reported as joined
  std::vector<Record> changes_;    // to report again (§6.1)
  uint64_t change_at_ = UINT64_MAX;
  uint64_t general_at_ = UINT64_MAX;                      // a General Query's answer
  std::vector<std::pair<ip6::Addr, uint64_t>> specific_;  // group-specific answers
  uint64_t v1_until_ = 0;                                 // MLDv1 mode until then (§8.2.1)
};

}  // namespace net
