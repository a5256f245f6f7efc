// Multicast Listener Discovery version 2 (RFC 3810) for a host on one
// interface: the groups it listens to are the solicited-node groups of its
// addresses (tentative ones included, RFC 4862 §5.4.2; all-nodes is never
// reported, §6). A change (an address added or gone) is reported at once
// and once more within the Unsolicited Report Interval (§6.1, Robustness 2);
// queries from a link-local source with hop limit 1 are answered after a
// random part of their Maximum Response Delay (§6.2): a General Query with
// every group, a Multicast Address Specific one with that group if ours.
// Reports go to ff02::16 from the link-local address with hop limit 1 and a
// Router Alert (§5, §5.2.13). MLDv1 queries are counted, not answered.
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/counters.hpp>
#include <vector>

namespace net {

class Link;
struct Ip6Received;

class Mld {
 public:
  static constexpr uint64_t unsolicited_report_interval_ns = 1'000'000'000;  // §9.11
  // Groups one report carries (the interface has fewer: its addresses' groups).
  static constexpr std::size_t max_groups = 32;

  Mld(Link& link, MldCounters& counters);
  // Our addresses changed: report the groups joined and left.
  void update();
  // A query (ICMPv6 checked), `len` bytes at `message`.
  void receive(const Ip6Received& info, const uint8_t* message, std::size_t len);
  const std::vector<ip6::Addr>& groups() const { return groups_; }

  void poll(uint64_t now);
  uint64_t next_deadline() const;

 private:
  struct Record {
    uint8_t type;
    ip6::Addr group;
  };
  std::vector<ip6::Addr> current_groups() const;
  void send(const std::vector<Record>& records);
  uint64_t random_delay(uint64_t max_ns) const;

  Link& link_;
  MldCounters& counters_;
  std::vector<ip6::Addr> groups_;  // reported as joined
  std::vector<Record> changes_;    // to report again (§6.1)
  uint64_t change_at_ = UINT64_MAX;
  uint64_t general_at_ = UINT64_MAX;                      // a General Query's answer
  std::vector<std::pair<ip6::Addr, uint64_t>> specific_;  // group-specific answers
};

}  // namespace net
