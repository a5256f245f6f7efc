// The destination cache of RFC 4861 §5.1, for what ICMPv6 taught this host
// about the paths to single destinations: a path MTU lowered by Packet Too
// Big (RFC 8201). Bounded (max_entries): a flood of valid-looking errors
// costs evictions (`ip6.destination_evictions`), never memory. Entries age
// out on their own (RFC 8201 §5.3: after pmtu_timeout the estimate goes
// back to the link's MTU), looked at only when used: no timer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <net/address.hpp>
#include <net/counters.hpp>
#include <vector>

namespace net {

class Destinations {
 public:
  // A host talks to few destinations whose path is narrower than its link;
  // the scan on every send stays short (empty: none at all).
  static constexpr std::size_t max_entries = 64;
  // RFC 8201 §5.3: no attempt to raise an estimate sooner than 5 minutes
  // after a Packet Too Big lowered it; 10 minutes recommended.
  static constexpr uint64_t pmtu_timeout_ns = 600'000'000'000;

  explicit Destinations(Ip6Counters& counters) : counters_(counters) {}

  // The path MTU estimate to `destination`, 0 when none is cached.
  uint32_t path_mtu(const ip6::Addr& destination, uint64_t now) const;
  // A Packet Too Big said `mtu` (at least 1280, below the link's MTU): a
  // lower estimate replaces the one cached (RFC 8201 §4: never raised by
  // a report). True when the estimate went down.
  bool lower_path_mtu(const ip6::Addr& destination, uint32_t mtu, uint64_t now);

  void clear() { entries_.clear(); }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    ip6::Addr destination;
    uint32_t mtu = 0;  // 0: none
    uint64_t mtu_expires = 0;
    uint64_t expires() const { return mtu_expires; }
  };
  const Entry* find(const ip6::Addr& destination, uint64_t now) const;
  // A new entry: in place of an expired one, else of the one that expires first.
  Entry& insert(const ip6::Addr& destination, uint64_t now);

  Ip6Counters& counters_;
  std::vector<Entry> entries_;
};

}  // namespace net
