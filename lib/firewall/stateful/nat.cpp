// NAT bindings and packet translation (nat.hpp). The choice of a tuple follows Linux's
// nf_nat_core: keep the packet's own port when the resulting tuple is free (and, with a port
// range, in it); otherwise search the range (or, without one, the port's class: 1-511, 600-1023
// or 1024-65535) from a random point for source NAT, from the start for destination NAT.
#include "keel/firewall/nat.hpp"

#include <algorithm>

#include "nat_rewrite.hpp"
#include "net/wire/icmp4.hpp"
#include "net/wire/ip4.hpp"

namespace keel::firewall {
namespace {

constexpr uint32_t kMaxAttempts = 128;  // tuples tried before narrowing the search
constexpr uint32_t kMinAttempts = 16;   // below this, give up
constexpr uint16_t kLowPortsEnd = 512, kPrivilegedEnd = 1024, kLowPortsMin = 1,
                   kPrivilegedMin = 600;

struct PortRange {
  uint32_t min = 0, size = 0;
};

// Linux's classes for a port without a range given: keep privileged ports privileged.
PortRange class_of(uint16_t port, uint8_t proto) {
  if (proto == kProtoIcmp) return {0, 0x10000};
  if (port < kLowPortsEnd) return {kLowPortsMin, kLowPortsEnd - kLowPortsMin};
  if (port < kPrivilegedEnd) return {kPrivilegedMin, kPrivilegedEnd - kPrivilegedMin};
  return {kPrivilegedEnd, 0x10000u - kPrivilegedEnd};
}

// The field of the reply tuple that NAT may vary for `manip`: the reply's destination port for
// source NAT, its source port for destination NAT, and for ICMP the identifier either way.
uint16_t& varied_port(FlowKey& reply, Manip manip) {
  if (reply.proto == kProtoIcmp) return reply.sport;
  return manip == Manip::src ? reply.dport : reply.sport;
}

bool translatable_ports(uint8_t proto) { return has_ports(proto) || proto == kProtoIcmp; }

}  // namespace

Nat::Nat(uint64_t seed) : state_(seed ? seed : 0x2545F4914F6CDD1Dull) {}

uint16_t Nat::random16() {
  // xorshift64*: the start of a port search need not be secret, only spread out.
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return static_cast<uint16_t>((state_ * 0x2545F4914F6CDD1Dull) >> 48);
}

bool Nat::bind(Conntrack& ct, uint32_t index, Manip manip, const NatTarget* target) {
  Flow& f = ct.flow(index);
  const uint16_t done = manip == Manip::src ? flow_status::src_nat_done : flow_status::dst_nat_done;
  const uint16_t nat_bit = manip == Manip::src ? flow_status::src_nat : flow_status::dst_nat;
  f.status |= done;
  FlowKey reply = f.tuple[static_cast<int>(Dir::reply)];
  if (target) {
    (manip == Manip::src ? reply.dst : reply.src) = target->address;
    ++counters_.bound;
  } else {
    ++counters_.null_bound;
  }
  const bool ranged = target && target->port_lo && has_ports(reply.proto);
  uint16_t& port = varied_port(reply, manip);
  if (ranged) {
    uint16_t lo = std::min(target->port_lo, target->port_hi),
             hi = std::max(target->port_lo, target->port_hi);
    bool in_range = port >= lo && port <= hi;
    // A destination with one port is that port: the flow's source keeps tuples apart.
    if (lo == hi && manip == Manip::dst) port = lo;
    if ((lo == hi && manip == Manip::dst) || (in_range && !ct.tuple_in_use(reply, index))) {
      f.tuple[1] = reply;
      if (!(reply == inverted(f.tuple[0]))) f.status |= nat_bit;
      return true;
    }
  } else if (!ct.tuple_in_use(reply, index) || (manip == Manip::dst && reply.proto != kProtoIcmp)) {
    // Destination NAT without a port range never changes a port (only a clashing ICMP id).
    f.tuple[1] = reply;
    if (!(reply == inverted(f.tuple[0]))) f.status |= nat_bit;
    return true;
  }
  if (!translatable_ports(reply.proto)) {
    ++counters_.drop_no_tuple;
    return false;
  }
  PortRange range = class_of(port, reply.proto);
  if (ranged) {
    uint16_t lo = std::min(target->port_lo, target->port_hi),
             hi = std::max(target->port_lo, target->port_hi);
    range = {lo, uint32_t{hi} - lo + 1};
  }
  uint32_t offset = manip == Manip::src ? random16() : 0;
  uint32_t attempts = std::min(range.size, kMaxAttempts);
  for (;;) {
    for (uint32_t i = 0; i < attempts; ++i, ++offset) {
      port = static_cast<uint16_t>(range.min + offset % range.size);
      if (!ct.tuple_in_use(reply, index)) {
        f.tuple[1] = reply;
        f.status |= nat_bit;
        ++counters_.ports_changed;
        return true;
      }
    }
    if (attempts >= range.size || attempts < kMinAttempts) break;
    attempts /= 2;
    offset = random16();
  }
  ++counters_.drop_no_tuple;
  return false;
}

bool Nat::apply(const Flow& f, Dir dir, Manip manip, uint8_t* ip, size_t len, bool partial) {
  // A packet is translated on the side its direction's NAT touches: source NAT changes the
  // original direction's source and the reply direction's destination, and the other way round.
  uint16_t bit = manip == Manip::src ? flow_status::src_nat : flow_status::dst_nat;
  if (dir == Dir::reply)
    bit = bit == flow_status::src_nat ? flow_status::dst_nat : flow_status::src_nat;
  if (!f.has(bit)) return false;
  // Make the packet look like the reverse of the other direction's tuple.
  const FlowKey target = inverted(f.tuple[1 - static_cast<int>(dir)]);
  uint32_t address = manip == Manip::src ? target.src : target.dst;
  uint16_t port = f.tuple[0].proto == kProtoIcmp ? target.sport
                  : manip == Manip::src          ? target.sport
                                                 : target.dport;
  if (!rewrite(ip, len, manip, address, port, partial, Quoted::no)) return false;
  ++counters_.rewritten;
  return true;
}

bool Nat::apply_icmp_error(const Flow& f, Dir dir, Manip manip, uint8_t* ip, size_t len,
                           bool partial) {
  uint16_t bit = manip == Manip::src ? flow_status::src_nat : flow_status::dst_nat;
  if (dir == Dir::reply)
    bit = bit == flow_status::src_nat ? flow_status::dst_nat : flow_status::src_nat;
  if (!f.has(bit)) return true;
  net::wire::Ip4View<uint8_t> v(ip, len);
  const uint32_t header = v.header_len();
  const uint32_t end = std::min<uint32_t>(static_cast<uint32_t>(len), v.total_length());
  if (end < header + net::wire::icmp4_header_size + net::wire::ip4_header_min) return false;
  uint8_t* icmp = ip + header;
  uint8_t* inner = icmp + net::wire::icmp4_header_size;
  const size_t inner_len = end - header - net::wire::icmp4_header_size;
  // The quoted packet travelled the other way: give it back the other direction's look, on the
  // side this hook does not touch (Linux: the inverse manip on the inner header).
  const FlowKey& quoted = f.tuple[1 - static_cast<int>(dir)];
  const Manip inner_manip = manip == Manip::src ? Manip::dst : Manip::src;
  uint32_t inner_address = inner_manip == Manip::src ? quoted.src : quoted.dst;
  uint16_t inner_port = quoted.proto == kProtoIcmp  ? quoted.sport
                        : inner_manip == Manip::src ? quoted.sport
                                                    : quoted.dport;
  if (!rewrite(inner, inner_len, inner_manip, inner_address, inner_port, false, Quoted::yes))
    return false;
  if (!partial) fill_icmp_checksum(icmp, end - header);
  // And the error itself goes to (or comes from) where the flow's packets do.
  const FlowKey target = inverted(quoted);
  uint32_t outer_address = manip == Manip::src ? target.src : target.dst;
  // The outer header is ICMP (an error): only its address changes.
  const uint32_t old = net::wire::load32(ip + (manip == Manip::src ? 12 : 16));
  net::wire::store32(ip + (manip == Manip::src ? 12 : 16), outer_address);
  net::wire::store16(ip + 10,
                     net::wire::checksum_update32(v.header_checksum(), old, outer_address));
  ++counters_.icmp_errors;
  return true;
}

}  // namespace keel::firewall
