#include "ip4.hpp"

#include <algorithm>
#include <cstring>
#include <os>

#include "bytes.hpp"

namespace keel::net {
namespace {

uint64_t now_ns() { return uint64_t(os::uptime().count()); }

ReassemblyLimits limits_of(const ::net::ReassemblyConfig& c) {
  constexpr std::size_t floor = std::size_t(256) << 10, ceiling = std::size_t(8) << 20;
  constexpr std::size_t share_of_memory = 16, share_per_source = 4;
  std::size_t bytes = c.max_bytes ? c.max_bytes
                                  : std::clamp(os::total_memory() / share_of_memory, floor, ceiling);
  std::size_t per_source = c.max_bytes_per_source ? c.max_bytes_per_source : bytes / share_per_source;
  return {bytes, per_source, c.timeout};
}

}  // namespace

Ip4::Ip4(::net::Ip4Counters& counters, uint16_t mtu, const ::net::ReassemblyConfig& reassembly)
    : counters_(counters),
      mtu_(mtu < 68 ? 68 : mtu),  // RFC 791: 68 minimum
      reassembly_(counters, limits_of(reassembly)) {}

Ip4::~Ip4() { os::Timers::stop(reassembly_timer_); }

// One timer for the oldest datagram's deadline; when a datagram completes
// before it, the timer just finds nothing to do and moves on.
void Ip4::arm_reassembly_timer() {
  uint64_t deadline = reassembly_.next_deadline();
  if (reassembly_timer_ != os::Timers::invalid_id || deadline == UINT64_MAX) return;
  uint64_t now = now_ns();
  auto wait = std::chrono::nanoseconds(deadline > now ? deadline - now : 0);
  reassembly_timer_ = os::Timers::oneshot(wait, [this](os::Timers::id_t) {
    reassembly_timer_ = os::Timers::invalid_id;
    reassembly_.expire(now_ns());
    arm_reassembly_timer();
  });
}

void Ip4::set_address(Addr address, Addr netmask, Addr gateway) {
  address_ = address;
  netmask_ = netmask;
  gateway_ = gateway;
}

bool Ip4::is_local_broadcast(Addr dst) const {
  if (dst.is_broadcast()) return true;
  // RFC 919/922: the directed broadcast of our subnet (not for /31, /32).
  return is_configured() && netmask_.value < 0xfffffffe &&
         dst.value == (address_.value | ~netmask_.value);
}

void Ip4::receive(::net::PacketPtr packet) {
  ++counters_.rx;
  if (packet->size() < ip4::header_min) {
    ++counters_.drop_truncated;
    return;
  }
  const uint8_t* p = packet->data();
  if (p[0] >> 4 != ip4::version) {
    ++counters_.drop_bad_version;
    return;
  }
  uint32_t header_len = uint32_t(p[0] & 0x0f) * 4;
  if (header_len < ip4::header_min || header_len > packet->size()) {
    ++counters_.drop_bad_header_length;
    return;
  }
  uint32_t total = load16(p + 2);
  if (total < header_len || total > packet->size()) {
    ++counters_.drop_bad_total_length;
    return;
  }
  if (checksum(p, header_len) != 0) {
    ++counters_.drop_bad_checksum;
    return;
  }
  packet->trim(total);  // Ethernet pads short frames
  ip4::Header h;
  h.src = Addr::from_bytes(p + 12);
  h.dst = Addr::from_bytes(p + 16);
  h.protocol = p[9];
  h.ttl = p[8];  // RFC 1122 §3.2.1.7: a host must not drop for a low TTL
  h.header_len = header_len;
  // RFC 1122 §3.2.1.3: no datagram comes from a broadcast or multicast
  // address, from "this host" (0.0.0.0: we serve no DHCP), from loopback, or
  // from our own address over the wire.
  constexpr uint32_t loopback_net = 127;
  bool own = is_configured() && h.src == address_;
  if (h.src.is_broadcast() || h.src.is_multicast() || is_local_broadcast(h.src) ||
      h.src.is_any() || (h.src.value >> 24) == loopback_net || own) {
    ++counters_.drop_bad_source;
    return;
  }
  h.to_broadcast = is_local_broadcast(h.dst);
  // Unconfigured, everything unicast is ours: a DHCP offer may be sent to
  // the address being offered (RFC 2131 §4.1).
  if (!(h.to_broadcast || h.dst == address_ || !is_configured()) || h.dst.is_multicast()) {
    ++counters_.drop_not_for_us;
    return;
  }
  uint16_t fragment = load16(p + 6);
  if (fragment & (ip4::flag_more_fragments | ip4::fragment_offset_mask)) {
    packet = reassembly_.add(std::move(packet), h, now_ns());
    arm_reassembly_timer();
    if (!packet) return;
    h.header_len = uint32_t(packet->data()[0] & 0x0f) * 4;
    h.reassembled = true;
  }
  packet->pull(h.header_len);
  if (h.protocol == ip4::protocol_udp && udp_) {
    udp_(h, std::move(packet));
  } else if (h.protocol == ip4::protocol_icmp && icmp_) {
    icmp_(h, std::move(packet));
  } else {
    ++counters_.drop_unknown_protocol;
    // RFC 1122 §3.2.2.1: protocol unreachable SHOULD be sent (not about
    // broadcasts, §3.2.2); data() back at the IP header for the quote.
    if (unreachable_ && !h.to_broadcast) {
      packet->push(h.header_len);
      unreachable_(h, std::move(packet));
    }
  }
}

void Ip4::write_header(uint8_t* h, uint32_t total, uint16_t id, uint16_t flags, uint8_t protocol,
                       Addr dst) {
  h[0] = uint8_t(ip4::version << 4 | ip4::header_min / 4);
  h[1] = 0;  // DSCP/ECN
  store16(h + 2, uint16_t(total));
  store16(h + 4, id);
  store16(h + 6, flags);
  h[8] = ip4::default_ttl;
  h[9] = protocol;
  store16(h + 10, 0);
  address_.write(h + 12);
  dst.write(h + 16);
  store16(h + 10, checksum(h, ip4::header_min));
}

::net::Status Ip4::send(Addr dst, uint8_t protocol, ::net::PacketPtr payload) {
  Addr next_hop;
  if (is_local_broadcast(dst) || dst.is_multicast()) {
    next_hop = dst.is_multicast() ? dst : Addr::broadcast();
  } else if (!is_configured()) {
    ++counters_.drop_no_route;
    return ::net::Status::not_configured;
  } else if ((dst.value & netmask_.value) == (address_.value & netmask_.value)) {
    next_hop = dst;
  } else if (!gateway_.is_any()) {
    next_hop = gateway_;
  } else {
    ++counters_.drop_no_route;
    return ::net::Status::no_route;
  }
  uint32_t len = payload->size();
  if (ip4::header_min + len > ip4::max_total_length) {
    ++counters_.drop_too_big;
    return ::net::Status::too_big;
  }
  uint16_t id = next_id_++;
  // In place only for a buffer with an owner: one without (a datagram built
  // on the caller's stack) may wait in the ARP queue or a transmit ring after
  // the call returns, so it takes the copying path below.
  if (ip4::header_min + len <= mtu_ && payload->owner() != nullptr &&
      payload->headroom() >= ip4::header_min + ::net::Packet::nic_headroom + 14) {
    uint8_t* h = payload->push(ip4::header_min);
    write_header(h, ip4::header_min + len, id, 0, protocol, dst);
    ++counters_.tx;
    link_(std::move(payload), next_hop);
    return ::net::Status::ok;
  }
  // Fragment (RFC 791 §3.2): copy slices into fresh buffers. The checksum
  // offload of a partial checksum cannot span fragments: complete it here
  // (a datagram that fits a buffer but not the MTU arrives partial).
  if (payload->flags & ::net::Packet::checksum_partial) {
    uint32_t start = payload->csum_start, field = start + payload->csum_offset;
    if (start > len || field + 2 > len) return ::net::Status::invalid;
    uint8_t* d = payload->data();
    uint16_t sum = uint16_t(~checksum_fold(checksum_add(0, d + start, len - start)));
    if (sum == 0) sum = 0xffff;  // RFC 768: 0 means "no checksum"
    store16(d + field, sum);
    payload->flags &= ~::net::Packet::checksum_partial;
  }
  // A too-short headroom (not expected) also goes through the copying path.
  uint32_t saved_id = id;
  uint32_t per_fragment = (mtu_ - ip4::header_min) & ~(ip4::fragment_unit - 1);
  const uint8_t* data = payload->data();
  for (uint32_t offset = 0; offset < len || (len == 0 && offset == 0); offset += per_fragment) {
    ::net::PacketPtr frag = allocate_ ? allocate_() : nullptr;
    // A jumbo MTU may exceed a pool buffer: fragments are as big as both allow.
    if (frag && frag->tailroom() < ip4::header_min + per_fragment) {
      if (offset != 0 || frag->tailroom() < ip4::header_min + ip4::fragment_unit) {
        ++counters_.drop_no_buffer;
        return ::net::Status::no_buffer;
      }
      per_fragment = (frag->tailroom() - ip4::header_min) & ~(ip4::fragment_unit - 1);
    }
    uint32_t chunk = len - offset < per_fragment ? len - offset : per_fragment;
    uint8_t* h = frag ? frag->append(ip4::header_min + chunk) : nullptr;
    if (!h) {
      ++counters_.drop_no_buffer;
      return ::net::Status::no_buffer;
    }
    bool more = offset + chunk < len;
    uint16_t flags = uint16_t((more ? ip4::flag_more_fragments : 0) | (offset / ip4::fragment_unit));
    std::memcpy(h + ip4::header_min, data + offset, chunk);
    write_header(h, ip4::header_min + chunk, uint16_t(saved_id), flags, protocol, dst);
    ++counters_.tx;
    if (more || offset != 0) ++counters_.tx_fragments;
    link_(std::move(frag), next_hop);
    if (len == 0) break;
  }
  return ::net::Status::ok;
}

}  // namespace keel::net
