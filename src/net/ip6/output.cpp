// IPv6 output: the path (interface, source, next hop) and the header, the
// output hook, then (with forwarded packets) postrouting, source
// fragmentation over the link MTU (fragments.cpp) and the link's neighbour
// discovery.
#include <algorithm>
#include <cstring>

#include "ip6.hpp"
#include "net/ip6/addr.hpp"
#include "net/reroute.hpp"
#include "net/stack_parts.hpp"

namespace net {

Ip6::Ip6(StackParts& parts, const StackConfig& config)
    : parts_(parts),
      reassembly_(parts.counters.ip6, reassembly_limits(config, config.reassembly.timeout6)),
      destinations_(parts.counters.ip6) {}

void Ip6::set_protocol(uint8_t next_header, Upper handler) {
  if (protocols_[next_header] == no_protocol) {
    protocols_[next_header] = uint8_t(uppers_.size());
    uppers_.emplace_back();
  }
  uppers_[protocols_[next_header]] = std::move(handler);
}

InterfaceId Ip6::owner(const ip6::Addr& a) const {
  if (a.is_any() || ip6addr::is_multicast(a)) return no_interface;
  for (std::size_t i = 0; i < parts_.link_count(); ++i)
    if (parts_.link(InterfaceId(i)).has_address6(a)) return InterfaceId(i);
  return no_interface;
}

bool Ip6::lookup(const ip6::Addr& destination, Ip6Path& path) const {
  int longest = -1;
  bool from_table = false;
  if (auto r = parts_.routes6.lookup(destination)) {
    path.interface = r->interface;
    path.next_hop = r->gateway.is_any() ? destination : r->gateway;
    path.source = r->source;
    longest = r->prefix_len;
    from_table = true;
  }
  // A connected or advertised prefix as long as the table's match wins:
  // the neighbour is on that link (RFC 4861 §5.2). Between interfaces, the
  // first with the longest.
  for (std::size_t i = 0; i < parts_.link_count(); ++i) {
    int length = parts_.link(InterfaceId(i)).on_link_length6(destination);
    if (length > longest || (length == longest && from_table)) {
      path.interface = InterfaceId(i);
      path.next_hop = destination;
      path.source = {};
      longest = length;
      from_table = false;
    }
  }
  for (std::size_t i = 0; i < parts_.link_count() && longest < 0; ++i) {
    ip6::Addr router = parts_.link(InterfaceId(i)).router6();
    if (!router.is_any()) {
      path.interface = InterfaceId(i);
      path.next_hop = router;
      longest = 0;
    }
  }
  return longest >= 0;
}

Result<Ip6Path> Ip6::route(const ip6::Addr& destination, const ip6::Addr& source,
                           InterfaceId via) const {
  if (parts_.link_count() == 0) return Status::not_configured;
  if (via != no_interface && via >= parts_.link_count()) return Status::invalid;
  Ip6Path path;
  path.next_hop = destination;
  InterfaceId from = owner(source);
  bool link_scope = ip6addr::is_link_local(destination) || ip6addr::is_multicast(destination);
  if (via != no_interface) {
    path.interface = via;
    // Off the link (a reply on the interface a request came in): through the
    // route's gateway if it leaves there, else the link's router.
    const Link& link = parts_.link(via);
    ip6::Addr router = link.router6();
    Ip6Path routed;
    if (!link_scope && lookup(destination, routed) && routed.interface == via) {
      path.next_hop = routed.next_hop;
    } else if (!link_scope && !link.on_link6(destination) && !router.is_any()) {
      path.next_hop = router;
    }
  } else if (link_scope) {
    // Without a zone, the interface of the source, else the first (RFC 4007
    // §6 leaves a zone-less link-local destination to the implementation).
    path.interface = from != no_interface ? from : 0;
  } else if (!lookup(destination, path)) {
    ++parts_.counters.ip6.drop_no_route;
    return Status::no_route;
  }
  if (!link_scope && destinations_.size() != 0) {  // most hosts: none cached, no clock read
    // RFC 4861 §8.3: a Redirect names a better first hop on that link.
    auto hop = destinations_.first_hop(destination, parts_.time.now());
    if (hop && hop->interface == path.interface) path.next_hop = hop->next_hop;
  }
  const Link& link = parts_.link(path.interface);
  if (!link.ip6_on()) {  // no IPv6 address was given to it (decision 0130)
    ++parts_.counters.ip6.drop_no_route;
    return Status::no_route;
  }
  if (!source.is_any()) {
    path.source = source;
  } else if (path.source.is_any()) {
    // RFC 6724 §5 rule 2, for the two addresses an interface has: the one
    // of the destination's scope.
    ip6::Addr global = link.global_source6();
    path.source = !link_scope && !global.is_any() ? global : link.link_local();
  }
  return path;
}

Status Ip6::send(const Ip6Path& path, const ip6::Addr& destination, uint8_t next_header,
                 PacketPtr payload, uint8_t hop_limit) {
  Ip6Counters& c = parts_.counters.ip6;
  uint32_t len = payload->size();
  Link& link = parts_.link(path.interface);
  bool local = is_local_address(destination);
  // A TSO segment fits: the NIC cuts it into MTU-sized ones.
  bool segmented = (payload->flags & Packet::segmentation_offload) && link.segments_tcp(true);
  bool fits = local || segmented ||
              wire::ip6_header_size + len <= own_mtu(path.interface, destination, next_header);
  // TCP sizes its segments by the MSS and path MTU (RFC 8201) and is never
  // fragmented; nor is a partial checksum, which cannot span fragments.
  if (len > wire::ip6_max_payload || (!fits && (next_header == wire::ip_protocol_tcp ||
                                                (payload->flags & Packet::checksum_partial)))) {
    ++c.drop_too_big;
    return Status::too_big;
  }
  payload = owned_with_headroom(
      std::move(payload), wire::ip6_header_size + wire::EthernetRepr::size + Packet::nic_headroom);
  if (!payload) {
    ++c.drop_no_buffer;
    return Status::no_buffer;
  }
  wire::Ip6Repr header;
  header.src = path.source;
  header.dst = destination;
  header.next_header = next_header;
  header.hop_limit = hop_limit;
  header.payload_len = uint16_t(len);
  header.emit(payload->push(wire::ip6_header_size));
  ++c.tx;
  InterfaceId out = path.interface;
  ip6::Addr next_hop = path.next_hop, to = destination;
  if (!parts_.hooks.empty(Hook::output)) {
    if (!passes(Hook::output, *payload, no_interface, out)) return Status::filtered;
    ip6::Addr now_to = wire::Ip6View<uint8_t>(payload->data(), payload->size()).dst();
    Status s = route_rewritten(*this, now_to, path.source, to, out, next_hop);
    if (s != Status::ok) return s;
    local = is_local_address(to);
  }
  if (local) {
    loopback_.emplace_back(out, std::move(payload));
    parts_.time.wake_by(0);
    return Status::ok;
  }
  return post_route(no_interface, out, next_hop, std::move(payload));
}

Status Ip6::post_route(InterfaceId in, InterfaceId out, const ip6::Addr& next_hop,
                       PacketPtr packet) {
  if (!passes(Hook::postrouting, *packet, in, out)) return Status::filtered;
  Link& link = parts_.link(out);
  // A TSO segment leaves as segments that fit: the NIC cuts it, or the link does where the NIC
  // cannot (a router's coalesced segment, decision 0093; its size was checked in forward()).
  bool segmented = packet->flags & Packet::segmentation_offload;
  wire::Ip6View<uint8_t> ip(packet->data(), packet->size());
  uint32_t mtu = in == no_interface ? own_mtu(out, ip.dst(), ip.next_header()) : link.mtu6();
  if (packet->size() <= mtu || segmented) {
    link.transmit_ip6(std::move(packet), next_hop);
    return Status::ok;
  }
  // Only this host's own packets are fragmented (send() refused what may
  // not be); a forwarded one never is (RFC 8200 §5: forward() answered it).
  if (in != no_interface) {
    ++parts_.counters.ip6.drop_packet_too_big;
    return Status::too_big;
  }
  return fragment(link, next_hop, std::move(packet), mtu);
}

uint32_t Ip6::path_mtu(InterfaceId out, const ip6::Addr& destination) const {
  uint32_t link = parts_.link(out).mtu6();
  if (destinations_.size() == 0) return link;  // every send asks: no clock read when none cached
  uint32_t learned = destinations_.path_mtu(destination, parts_.time.now());
  return learned ? std::min(link, learned) : link;
}

// TCP keeps its path MTU per connection and sizes segments by it (decision
// 0131): its segments are held to the link's MTU here, never fragmented.
uint32_t Ip6::own_mtu(InterfaceId out, const ip6::Addr& destination, uint8_t next_header) const {
  return next_header == wire::ip_protocol_tcp ? parts_.link(out).mtu6()
                                              : path_mtu(out, destination);
}

void Ip6::poll(uint64_t now) {
  reassembly_.expire(now);
  std::vector<std::pair<InterfaceId, PacketPtr>> due;
  due.swap(loopback_);
  for (auto& [in, packet] : due) {
    deliver(in, std::move(packet), false);
    parts_.run_handlers();  // as after a frame from a NIC
  }
}

}  // namespace net
