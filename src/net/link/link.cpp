#include "link.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <exception>

#include "net/dhcp/dhcp.hpp"
#include "net/ip6/addr.hpp"
#include "net/link/tcp_segmentation.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/ethernet.hpp"
#include "net/wire/ip4.hpp"

namespace net {
namespace {

constexpr ip4::Addr all_hosts_group{224, 0, 0, 1};  // RFC 1112 §4: every host is in it
constexpr uint32_t default_route_metric = 100;
constexpr std::size_t max_batch = 64;

}  // namespace

Link::Link(StackParts& parts, Nic& nic, InterfaceId id)
    : parts_(parts),
      nic_(nic),
      id_(id),
      name_("net" + std::to_string(id)),
      mac_(nic.mac()),
      mtu_(nic.mtu() < wire::ip4_min_mtu ? uint16_t(wire::ip4_min_mtu) : nic.mtu()),
      arp_(*this, counters_.arp),
      ndp_(*this, counters_.ndp),
      routers_(*this, counters_.ra),
      mld_(*this, counters_.mld),
      link_local_(ip6addr::link_local_from_mac(mac_)) {
  // The NIC's event, not a send: handlers may run (those it made due).
  nic.set_transmit_ready([this] {
    drain_queue();
    parts_.run_handlers();
  });
}

Link::~Link() { nic_.set_transmit_ready(nullptr); }

uint64_t Link::now() const { return parts_.time.now(); }
void Link::wake_by(uint64_t deadline_ns) { parts_.time.wake_by(deadline_ns); }

PacketPtr Link::allocate() { return nic_.allocate_packet(); }

Link::Outgoing Link::allocate(uint32_t bytes, bool segmented) {
  Outgoing out{segmented ? nullptr : allocate()};
  out.data = out.packet ? out.packet->append(bytes) : nullptr;
  if (out.data) {
    out.offload_checksum = nic_.offloads().tx_checksum && wire::ip4_header_min + bytes <= mtu();
    return out;
  }
  out.packet = allocate_heap_packet(bytes);
  out.data = out.packet ? out.packet->append(bytes) : nullptr;
  if (!out.data) out.packet = nullptr;
  out.offload_checksum = segmented && out.data;
  return out;
}

bool Link::accepts_group(const ethernet::Addr& mac) const {
  if (mac == multicast_mac(all_hosts_group)) return true;
  // RFC 4861 §7.2.1: all-nodes and the solicited-node groups of our
  // addresses (the NIC passes every group: docs/net/ipv6.md).
  if (ip6_on_ && accepts_group6(mac)) return true;
  for (ip4::Addr group : groups_)
    if (multicast_mac(group) == mac) return true;
  return false;
}

void Link::receive(PacketPtr frame) {
  EthernetCounters& c = counters_.ethernet;
  ++c.rx;
  auto header = wire::EthernetRepr::parse({frame->data(), frame->size()});
  if (!header) {
    ++c.drop_truncated;
    return;
  }
  LinkCast cast = LinkCast::unicast;
  if (header->dst == mac_) {
    cast = LinkCast::unicast;
  } else if (header->dst.is_broadcast()) {
    cast = LinkCast::broadcast;
  } else if (header->dst.is_multicast() && accepts_group(header->dst)) {
    cast = LinkCast::multicast;
    ++c.rx_multicast;
  } else {
    ++c.drop_not_for_us;
    return;
  }
  frame->pull(wire::EthernetRepr::size);
  switch (header->type) {
    case wire::ethertype_ip4:
      parts_.ip4.receive(id_, std::move(frame), cast);
      return;
    case wire::ethertype_arp:
      arp_.receive(std::move(frame), now());
      return;
    case wire::ethertype_ip6:
      if (!ip6_on_) {
        ++c.drop_ip6_off;
        return;
      }
      parts_.ip6.receive(id_, std::move(frame), cast);
      return;
    default:
      ++c.drop_unknown_type;
  }
}

void Link::transmit_ip(PacketPtr packet, ip4::Addr next_hop) {
  if (next_hop.is_broadcast() || is_directed_broadcast(next_hop)) {
    transmit_frame(std::move(packet), ethernet::Addr::broadcast(), wire::ethertype_ip4);
  } else if (next_hop.is_multicast()) {
    transmit_frame(std::move(packet), multicast_mac(next_hop), wire::ethertype_ip4);
  } else {
    arp_.transmit(std::move(packet), next_hop, now());
  }
}

void Link::transmit_frame(PacketPtr payload, ethernet::Addr dst, uint16_t type) {
  EthernetCounters& c = counters_.ethernet;
  uint8_t* h = payload->push(wire::EthernetRepr::size);
  if (!h) {
    ++c.drop_no_buffer;
    return;
  }
  wire::EthernetRepr{dst, mac_, type}.emit(std::span<uint8_t, wire::EthernetRepr::size>(h, 14));
  if ((payload->flags & Packet::segmentation_offload) &&
      !segments_tcp(type == wire::ethertype_ip6)) {
    transmit_segmented(std::move(payload));
    return;
  }
  send_frame(std::move(payload));
}

// A TCP segment larger than the MTU on a NIC that cannot cut it (one a
// router received coalesced, decision 0093): cut here as the device would,
// each piece copied into a buffer of the NIC's pool.
void Link::transmit_segmented(PacketPtr frame) {
  LinkCounters& c = counters_.link;
  bool ok = segment_tcp(*frame, [&](std::span<const uint8_t> segment) {
    const uint32_t n = uint32_t(segment.size());
    PacketPtr piece = allocate();
    if (!piece || piece->tailroom() < n) piece = allocate_heap_packet(n);
    uint8_t* to = piece ? piece->append(n) : nullptr;
    if (!to) {
      ++c.drop_unsegmentable;
      return;
    }
    std::memcpy(to, segment.data(), segment.size());
    ++c.tx_software_segments;
    send_frame(std::move(piece));
  });
  if (ok) {
    ++c.tx_software_segmented;
  } else {
    ++c.drop_unsegmentable;
  }
}

void Link::send_frame(PacketPtr payload) {
  EthernetCounters& c = counters_.ethernet;
  if (queue_.empty() && nic_.transmit_room() > 0) {
    ++c.tx;
    nic_.transmit(std::move(payload));
    return;
  }
  if (!queue_.push(payload)) {
    ++counters_.link.drop_tx_queue_full;
    return;
  }
  ++c.tx;
  ++counters_.link.tx_queued;
  if (queue_.size() >= queue_high) congested_ = true;
  drain_queue();  // the NIC may have room already (it reaps as it goes)
}

void Link::drain_queue() {
  std::size_t room;
  while (!queue_.empty() && (room = nic_.transmit_room()) > 0) {
    PacketPtr batch[max_batch];
    std::size_t n = std::min({room, queue_.size(), max_batch});
    for (std::size_t i = 0; i < n; ++i) batch[i] = queue_.pop();
    nic_.transmit(std::span<PacketPtr>(batch, n));
  }
  if (congested_ && queue_.size() <= queue_low) {
    congested_ = false;
    parts_.transmit_ready();
  }
}

void Link::update_broadcast() {
  // RFC 919/922: all host bits set; /31 and /32 have no broadcast address.
  bool has_one = is_configured() && netmask_.value < 0xfffffffe;
  broadcast_ = has_one ? ip4::Addr{address_.value | ~netmask_.value} : ip4::Addr::broadcast();
  parts_.ip4.addresses_changed();
}

void Link::add_own_route(Route route) {
  route.destination.value &= ip4::netmask_of(route.prefix_len).value;  // as Routes keeps it
  if (parts_.routes.add(route) == Status::ok) own_routes_.push_back(route);
}

void Link::remove_own_routes() {
  auto own = [this](const Route& r) {
    return std::any_of(own_routes_.begin(), own_routes_.end(), [&](const Route& o) {
      return o.destination == r.destination && o.prefix_len == r.prefix_len &&
             o.interface == r.interface && o.gateway == r.gateway;
    });
  };
  std::vector<Route> others;  // Routes removes only by interface: put the rest back
  for (const Route& r : parts_.routes.all())
    if (r.interface == id_ && !own(r)) others.push_back(r);
  parts_.routes.remove_interface(id_);
  for (const Route& r : others) parts_.routes.add(r);
  own_routes_.clear();
}

void Link::configure(ip4::Addr address, ip4::Addr netmask, ip4::Addr gateway,
                     std::vector<ip4::Addr> dns) {
  remove_own_routes();
  if (address != address_) arp_.clear();
  address_ = address;
  netmask_ = netmask;
  gateway_ = gateway;
  dns_ = std::move(dns);
  update_broadcast();
  Route connected;  // the subnet, on this link
  connected.destination = address;
  connected.prefix_len = uint8_t(std::countl_one(netmask.value));
  connected.interface = id_;
  connected.source = address;
  add_own_route(connected);
  if (!gateway.is_any()) {
    Route fallback;  // the default route, through the gateway
    fallback.gateway = gateway;
    fallback.interface = id_;
    fallback.metric = default_route_metric + id_;
    fallback.source = address;
    add_own_route(fallback);
  }
  arp_.announce();
  std::printf("%s: %s netmask %s gateway %s\n", name_.c_str(), address.to_string().c_str(),
              netmask.to_string().c_str(), gateway.to_string().c_str());
  configured();
}

void Link::deconfigure() {
  remove_own_routes();
  arp_.clear();
  address_ = netmask_ = gateway_ = {};
  dns_.clear();
  update_broadcast();
}

void Link::apply(const InterfaceConfig& config) {
  // Only lowered: the NIC's buffers are sized for its own.
  if (config.mtu) mtu_ = std::min(config.mtu, nic_.mtu());
  // IPv6 is static or SLAAC, whatever IPv4 does (docs/net/ipv6.md).
  if (config.mode != InterfaceConfig::Mode::none && !config.address6.is_any())
    configure6(config.address6, config.prefix6, config.gateway6);
  if (config.mode != InterfaceConfig::Mode::none && config.slaac) start_slaac(config.iid);
  switch (config.mode) {
    case InterfaceConfig::Mode::none:
      if (dhcp_) dhcp_->stop();
      if (is_configured()) deconfigure();
      return;
    case InterfaceConfig::Mode::static_address:
      if (dhcp_) dhcp_->stop();
      if (config.has_static_address())
        configure(config.address, config.netmask, config.gateway, config.dns);
      return;
    case InterfaceConfig::Mode::dhcp:
      start_dhcp(config);
      return;
  }
}

void Link::start_dhcp(const InterfaceConfig& fallback) {
  if (!dhcp_) dhcp_ = std::make_unique<Dhcp>(parts_.udp, *this, counters_.dhcp);
  dhcp_->on_bound([this](const Dhcp::Lease& lease, bool renewed) {
    if (renewed) {
      std::printf("%s: DHCP lease renewed (%lld s)\n", name_.c_str(),
                  (long long)lease.lease.count());
      return;
    }
    std::printf("%s: DHCP lease %s from %s for %lld s\n", name_.c_str(),
                lease.address.to_string().c_str(), lease.server.to_string().c_str(),
                (long long)lease.lease.count());
    configure(lease.address, lease.netmask, lease.gateway, lease.dns);
  });
  dhcp_->on_lost([this] {
    std::printf("%s: DHCP lease lost\n", name_.c_str());
    deconfigure();
  });
  dhcp_->on_fallback([this, fallback] {
    if (!fallback.has_static_address()) {
      std::printf("%s: no DHCP lease and no static fallback\n", name_.c_str());
      return;
    }
    std::printf("%s: no DHCP lease, using the static fallback\n", name_.c_str());
    configure(fallback.address, fallback.netmask, fallback.gateway, fallback.dns);
  });
  dhcp_->start(fallback.dhcp_timeout, fallback.dhcp_t1);
}

void Link::on_config(Interface::ConfigHandler handler) {
  config_handlers_.push_back(std::move(handler));
  if (is_configured()) {
    config_due_.push_back(config_handlers_.size() - 1);
    parts_.time.wake_by(parts_.time.now());
  }
}

void Link::configured() {
  config_due_.clear();
  for (std::size_t i = 0; i < config_handlers_.size(); ++i) config_due_.push_back(i);
  if (!config_due_.empty()) parts_.time.wake_by(parts_.time.now());
}

void Link::run_due_config_handlers() {
  // Each from a copy: a handler may add handlers (they run at once if the
  // address is known: at the next step).
  std::vector<std::size_t> due;
  due.swap(config_due_);
  for (std::size_t i : due) {
    Interface::ConfigHandler handler = config_handlers_[i];
    try {
      handler(*interface_);
    } catch (const std::exception& e) {
      std::printf("%s: an on_config handler threw: %s\n", name_.c_str(), e.what());
    } catch (...) {
      std::printf("%s: an on_config handler threw\n", name_.c_str());
    }
  }
}

void Link::join(ip4::Addr group) {
  if (group.is_multicast() && !joined(group)) groups_.push_back(group);
}

void Link::leave(ip4::Addr group) { std::erase(groups_, group); }

bool Link::joined(ip4::Addr group) const {
  return group == all_hosts_group ||
         std::find(groups_.begin(), groups_.end(), group) != groups_.end();
}

void Link::poll(uint64_t now) {
  arp_.poll(now);
  ndp_.poll(now);
  if (routers_.active()) routers_.poll(now);
  mld_.poll(now);
  if (dhcp_) dhcp_->poll(now);
}

uint64_t Link::next_deadline() const {
  uint64_t earliest = std::min({arp_.next_deadline(), ndp_.next_deadline(), mld_.next_deadline(),
                                routers_.active() ? routers_.next_deadline() : UINT64_MAX});
  if (dhcp_) earliest = std::min(earliest, dhcp_->next_deadline());
  return earliest;
}

}  // namespace net
