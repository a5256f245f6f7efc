// The destination cache of RFC 4861 §5.1, for what ICMPv6 taught this host
// about the paths to single destinations: a path MTU lowered by Packet Too
// Big (RFC 8201) and a first hop from a Redirect (RFC 4861 §8.3). Bounded
// (max_entries): a flood of valid-looking messages costs evictions
// (`ip6.destination_evictions`), never memory. Entries age out on their own
// (RFC 8201 §5.3: after pmtu_timeout the estimate goes back to the link's
// MTU; a redirect after redirect_timeout), looked at only when used: no timer.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <net/address.hpp>
#include <net/counters.hpp>
#include <net/routes.hpp>
#include <optional>
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
  // RFC 4861 sets none; a router that still wants the detour redirects
  // again while we keep sending (§8.2), so an entry no one renews goes.
  static constexpr uint64_t redirect_timeout_ns = 600'000'000'000;

  struct FirstHop {
    InterfaceId interface = no_interface;
    ip6::Addr next_hop;
  };

  explicit Destinations(Ip6Counters& counters) : counters_(counters) {}

  // The path MTU estimate to `destination`, 0 when none is cached.
  uint32_t path_mtu(const ip6::Addr& destination, uint64_t now) const;
  // A Packet Too Big said `mtu` (at least 1280, below the link's MTU): a
  // lower estimate replaces the one cached (RFC 8201 §4: never raised by
  // a report). True when the estimate went down.
  bool lower_path_mtu(const ip6::Addr& destination, uint32_t mtu, uint64_t now);

  // A Redirect (RFC 4861 §8.3) the caller validated: `destination` is
  // reached through `next_hop` (a router, or itself) on `interface`.
  void redirect(const ip6::Addr& destination, InterfaceId interface, const ip6::Addr& next_hop,
                uint64_t now);
  // The first hop a Redirect set for `destination`, if any.
  std::optional<FirstHop> first_hop(const ip6::Addr& destination, uint64_t now) const;
  // Forwarding turned on: a router takes no redirects (§8.2), so none stays.
  void forget_redirects();

  void clear() { entries_.clear(); }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    ip6::Addr destination;
    uint32_t mtu = 0;  // 0: none
    uint64_t mtu_expires = 0;
    FirstHop hop;  // from a Redirect: interface no_interface when none
    uint64_t hop_expires = 0;
    uint64_t expires() const { return std::max(mtu_expires, hop_expires); }
  };
  const Entry* find(const ip6::Addr& destination, uint64_t now) const;
  // A new entry: in place of an expired one, else of the one that expires first.
  Entry& insert(const ip6::Addr& destination, uint64_t now);
  Entry& find_or_insert(const ip6::Addr& destination, uint64_t now);

  Ip6Counters& counters_;
  std::vector<Entry> entries_;
};

}  // namespace net
