// IPv4 output: routing for this host's datagrams, the output hook, then
// (with forwarded ones) postrouting, fragmentation (RFC 791 §3.2) and the
// outgoing interface.
#include <algorithm>
#include <cstring>

#include "ip4.hpp"
#include "net/reroute.hpp"
#include "net/stack_parts.hpp"

namespace net {
namespace {

// RFC 791 §3.1: options whose "copied" flag (bit 7) is set go into every
// fragment; the rest only into the first. Writes them at `out`, padded to a
// multiple of 4 bytes; returns their length.
uint32_t copied_options(const uint8_t* options, uint32_t len, uint8_t* out) {
  constexpr uint8_t end_of_list = 0, no_operation = 1, copied_flag = 0x80;
  uint32_t written = 0;
  for (uint32_t i = 0; i < len;) {
    uint8_t type = options[i];
    if (type == end_of_list) break;
    uint32_t size = type == no_operation ? 1 : (i + 1 < len ? options[i + 1] : 0);
    if (size < 1 || i + size > len) break;  // malformed: copy nothing more
    if (type & copied_flag) {
      std::memcpy(out + written, options + i, size);
      written += size;
    }
    i += size;
  }
  while (written % 4) out[written++] = end_of_list;
  return written;
}

}  // namespace

Result<Ip4Path> Ip4::route(ip4::Addr destination, ip4::Addr source, InterfaceId via) const {
  Ip4Path path;
  if (via != no_interface) {
    if (via >= parts_.link_count()) return Status::invalid;
    path.interface = via;
    path.next_hop = destination;
    if (!destination.is_broadcast() && !destination.is_multicast()) {
      if (auto r = parts_.routes.lookup(destination);
          r && r->interface == via && !r->gateway.is_any())
        path.next_hop = r->gateway;
    }
  } else if (auto r = parts_.routes.lookup(destination)) {
    path.interface = r->interface;
    // A group or broadcast goes to its own link address, never to a gateway.
    bool to_link = r->gateway.is_any() || destination.is_broadcast() || destination.is_multicast();
    path.next_hop = to_link ? destination : r->gateway;
    path.source = r->source;
  } else if (destination.is_broadcast() || destination.is_multicast()) {
    // No route (no interface configured): the first interface, as the only
    // one a DHCP client or a lone multicast sender can mean.
    if (parts_.link_count() == 0) return Status::no_route;
    path.interface = 0;
    path.next_hop = destination;
  } else {
    ++parts_.counters.ip4.drop_no_route;
    return parts_.link_count() == 0 || !parts_.link(0).is_configured() ? Status::not_configured
                                                                       : Status::no_route;
  }
  const Link& link = parts_.link(path.interface);
  if (!source.is_any()) {
    path.source = source;
  } else if (path.source.is_any()) {
    path.source = link.address();
  }
  // Only a broadcast may leave an interface without an address (RFC 2131
  // §4.1: DHCP's, from 0.0.0.0).
  if (path.source.is_any() && !destination.is_broadcast()) return Status::not_configured;
  return path;
}

Status Ip4::send(const Ip4Path& path, ip4::Addr destination, uint8_t protocol, PacketPtr payload,
                 const Ip4SendOptions& options) {
  Ip4Counters& c = parts_.counters.ip4;
  uint32_t len = payload->size();
  if (wire::ip4_header_min + len > wire::ip4_max_total_length) {
    ++c.drop_too_big;
    return Status::too_big;
  }
  wire::Ip4Repr header;
  header.src = path.source;
  header.dst = destination;
  header.protocol = protocol;
  header.ttl = options.ttl;
  header.tos = options.tos;
  header.id = next_id_++;
  header.dont_fragment = options.dont_fragment;
  header.payload_len = uint16_t(len);
  payload = owned_with_headroom(
      std::move(payload), wire::ip4_header_min + wire::EthernetRepr::size + Packet::nic_headroom);
  if (!payload) {
    ++c.drop_no_buffer;
    return Status::no_buffer;
  }
  header.emit(payload->push(wire::ip4_header_min));
  ++c.tx;
  InterfaceId out = path.interface;
  ip4::Addr next_hop = path.next_hop;
  if (!parts_.hooks.empty(Hook::output)) {
    if (!passes(Hook::output, *payload, no_interface, out)) return Status::filtered;
    ip4::Addr now_to = wire::Ip4View<uint8_t>(payload->data(), payload->size()).dst();
    Status s = route_rewritten(*this, now_to, path.source, destination, out, next_hop);
    if (s != Status::ok) return s;
  }
  if (is_local_address(destination)) {
    // To ourselves: no link carries it. Delivered on the next poll, so a
    // handler that sends to its own address is not re-entered.
    loopback_.emplace_back(out, std::move(payload));
    parts_.time.wake_by(0);
    return Status::ok;
  }
  return post_route(no_interface, out, next_hop, std::move(payload));
}

Status Ip4::post_route(InterfaceId in, InterfaceId out, ip4::Addr next_hop, PacketPtr packet) {
  Ip4Counters& c = parts_.counters.ip4;
  if (!passes(Hook::postrouting, *packet, in, out)) return Status::filtered;
  Link& link = parts_.link(out);
  // A TSO segment leaves whole: the NIC cuts it into MTU-sized ones, or the
  // link does where the NIC cannot (a router's coalesced segment, rerouted
  // by a hook: decision 0093). Never fragmented.
  bool segmented = packet->flags & Packet::segmentation_offload;
  if (packet->size() <= link.mtu() || segmented) {
    link.transmit_ip(std::move(packet), next_hop);
    return Status::ok;
  }
  // Forwarded datagrams with DF were answered in forward(); our own are
  // refused, so the sender can do path MTU discovery (RFC 1191).
  if (wire::Ip4View<uint8_t>(packet->data(), packet->size()).dont_fragment()) {
    ++c.drop_fragmentation_needed;
    return Status::too_big;
  }
  return fragment(link, next_hop, std::move(packet));
}

// Copies slices of the datagram into fresh buffers of the link's pool. A
// partial checksum (offload) cannot span fragments: it is completed here.
Status Ip4::fragment(Link& link, ip4::Addr next_hop, PacketPtr packet) {
  Ip4Counters& c = parts_.counters.ip4;
  wire::Ip4View<uint8_t> v(packet->data(), packet->size());
  uint32_t header_len = v.header_len();
  uint32_t len = v.payload_len();
  uint8_t* data = v.payload();
  if (packet->flags & Packet::checksum_partial) {
    uint32_t start = packet->csum_start - header_len, field = start + packet->csum_offset;
    if (packet->csum_start < header_len || start > len || field + 2 > len) return Status::invalid;
    uint16_t sum = uint16_t(~wire::checksum_fold(wire::checksum_add(0, data + start, len - start)));
    wire::store16(data + field, sum == 0 ? 0xffff : sum);  // RFC 768: 0 means "no checksum"
    packet->flags &= ~Packet::checksum_partial;
  }
  uint8_t later_header[wire::ip4_header_max];
  std::memcpy(later_header, packet->data(), wire::ip4_header_min);
  uint32_t later_len = wire::ip4_header_min + copied_options(packet->data() + wire::ip4_header_min,
                                                             header_len - wire::ip4_header_min,
                                                             later_header + wire::ip4_header_min);
  later_header[0] = uint8_t(wire::ip4_version << 4 | later_len / 4);
  uint32_t base_offset = v.fragment_offset();  // a forwarded fragment may be split again
  bool last_is_more = v.more_fragments();
  for (uint32_t offset = 0; offset < len;) {
    const uint8_t* header = offset == 0 ? packet->data() : later_header;
    uint32_t hlen = offset == 0 ? header_len : later_len;
    PacketPtr frag = link.allocate();
    if (!frag) {
      ++c.drop_no_buffer;
      return Status::no_buffer;
    }
    uint32_t room = std::min<uint32_t>(link.mtu(), frag->tailroom()) - hlen;
    uint32_t chunk = std::min(len - offset, room & ~(wire::ip4_fragment_unit - 1));
    if (chunk == 0) {
      ++c.drop_no_buffer;
      return Status::no_buffer;
    }
    bool more = offset + chunk < len || last_is_more;
    uint8_t* out = frag->append(hlen + chunk);
    std::memcpy(out, header, hlen);
    std::memcpy(out + hlen, data + offset, chunk);
    wire::Ip4View<uint8_t> f(out, hlen + chunk);
    f.set_total_length(uint16_t(hlen + chunk));
    f.set_fragment(false, more, base_offset + offset);
    f.fill_checksum();
    ++c.tx_fragments;
    link.transmit_ip(std::move(frag), next_hop);
    offset += chunk;
  }
  return Status::ok;
}

void Ip4::run_loopback() {
  std::vector<std::pair<InterfaceId, PacketPtr>> due;
  due.swap(loopback_);
  for (auto& [in, packet] : due) {
    local_input(in, std::move(packet), LinkCast::unicast);
    parts_.run_handlers();  // as after a frame from a NIC
  }
}

}  // namespace net
