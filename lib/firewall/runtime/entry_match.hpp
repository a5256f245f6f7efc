#pragma once
// Whether a packet matches a packed 5-tuple entry (tuple buckets; the reference for leaf octets).
#include "keel/firewall/packet.hpp"
#include "keel/firewall/tables.hpp"

namespace keel::firewall {

// Non-short-circuit: all compares are cheap and branch-free is faster than early exits here.
inline bool entry_matches(const TupleEntry& e, const Packet& p) {
  return (((p.saddr & prefix_mask(e.saddr_length)) == e.saddr) &
          ((p.daddr & prefix_mask(e.daddr_length)) == e.daddr) & (p.sport >= e.sport_lo) &
          (p.sport <= e.sport_hi) & (p.dport >= e.dport_lo) & (p.dport <= e.dport_hi) &
          (p.proto >= e.proto_lo) & (p.proto <= e.proto_hi)) != 0;
}

}  // namespace keel::firewall
