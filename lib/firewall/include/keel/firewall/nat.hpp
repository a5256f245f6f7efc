#pragma once
// NAT on tracked flows, as Linux's nf_nat does it: a flow's first packet picks its translation
// (a snat, dnat or masquerade rule, or none) once per kind (source, destination); the flow's
// reply tuple then says what every later packet of either direction is rewritten to. Tuples stay
// unique: a source port (or ICMP identifier) another flow holds is never handed out again.
// Checksums are updated incrementally (RFC 1624), partial ones (offload) as pseudo-header sums.
// ICMP errors about a translated flow have the packet they quote, and their own addresses,
// translated back.
#include <cstddef>
#include <cstdint>

#include "keel/firewall/conntrack.hpp"

namespace keel::firewall {

enum class Manip : uint8_t { src, dst };  // snat/masquerade change the source, dnat the destination

// What a rule translates to: an address, and for TCP and UDP a port range (port_lo 0: ports
// stay unless they clash).
struct NatTarget {
  uint32_t address = 0;
  uint16_t port_lo = 0;
  uint16_t port_hi = 0;
};

struct NatCounters {
  uint64_t bound = 0, null_bound = 0, ports_changed = 0, drop_no_tuple = 0, rewritten = 0,
           icmp_errors = 0;
  template <class Fn>
  void for_each(Fn&& fn) const {
    fn("bound", bound), fn("null_bound", null_bound), fn("ports_changed", ports_changed);
    fn("drop_no_tuple", drop_no_tuple), fn("rewritten", rewritten), fn("icmp_errors", icmp_errors);
  }
};

class Nat {
 public:
  explicit Nat(uint64_t seed = 0);
  // Chooses the translation of pending flow `flow` for `manip`: to `target`, or with nullptr
  // none (a null binding, which still moves a source port off a tuple another flow holds).
  // False when no unique tuple is left: drop the packet.
  bool bind(Conntrack& conntrack, uint32_t flow, Manip manip, const NatTarget* target);
  // Rewrites a packet of `flow` travelling `dir` at a hook that does `manip`, if the flow is
  // translated that way. `len` bytes at `ip`; `partial`: the transport checksum holds only the
  // pseudo-header sum (offload). Returns whether anything changed.
  bool apply(const Flow& flow, Dir dir, Manip manip, uint8_t* ip, size_t len, bool partial);
  // The same for an ICMP error related to `flow`, travelling `dir`: the quoted packet and the
  // error's own address. False when the error cannot be rewritten (drop it).
  bool apply_icmp_error(const Flow& flow, Dir dir, Manip manip, uint8_t* ip, size_t len,
                        bool partial);

  const NatCounters& counters() const { return counters_; }

 private:
  uint16_t random16();
  uint64_t state_;
  NatCounters counters_;
};

}  // namespace keel::firewall
