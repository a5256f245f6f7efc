#include "udp_layer.hpp"

#include <sys/random.h>

#include <cstring>

#include "net/stack_parts.hpp"
#include "net/wire/udp.hpp"
#include "util/slots.hpp"

namespace net {

UdpLayer::UdpLayer(StackParts& parts)
    : parts_(parts), counters_(parts.counters.udp), ports_(Udp::max_sockets) {
  // RFC 6056 §3.3.1: start the ephemeral search at a random port.
  uint16_t r = 0;
  if (getrandom(&r, sizeof r, 0) != ssize_t(sizeof r)) r = 0;
  ephemeral_next_ =
      uint16_t(Udp::ephemeral_first + r % (Udp::ephemeral_last - Udp::ephemeral_first + 1));
}

UdpLayer::Slot* UdpLayer::find(uint32_t slot, uint32_t generation) {
  if (slot >= slots_.size() || !slots_[slot].open || slots_[slot].generation != generation)
    return nullptr;
  return &slots_[slot];
}

const UdpLayer::Slot* UdpLayer::find(uint32_t slot, uint32_t generation) const {
  return const_cast<UdpLayer*>(this)->find(slot, generation);
}

// The best socket for a datagram: its address exact beats any(), then its
// interface exact beats none.
uint32_t UdpLayer::lookup(const Address& destination, uint16_t port, InterfaceId in) const {
  const uint32_t* first = ports_.find(port);
  uint32_t best = none;
  int best_score = -1;
  for (uint32_t i = first ? *first : none; i != none; i = slots_[i].next_on_port) {
    const Slot& s = slots_[i];
    bool address_ok = s.address.is_any() || s.address == destination;
    bool interface_ok = s.interface == no_interface || s.interface == in;
    if (!address_ok || !interface_ok) continue;
    int score = (s.address.is_any() ? 0 : 2) + (s.interface == no_interface ? 0 : 1);
    if (score > best_score) {
      best = i;
      best_score = score;
    }
  }
  return best;
}

bool UdpLayer::is_bound(const Endpoint& local, InterfaceId interface) const {
  const uint32_t* first = ports_.find(local.port);
  for (uint32_t i = first ? *first : none; i != none; i = slots_[i].next_on_port) {
    // any() of either family is one binding (every address, both families).
    const Address& a = slots_[i].address;
    bool same = a.is_any() ? local.address.is_any() : a == local.address;
    if (same && slots_[i].interface == interface) return true;
  }
  return false;
}

uint16_t UdpLayer::free_ephemeral_port() {
  for (int tries = 0; tries <= Udp::ephemeral_last - Udp::ephemeral_first; ++tries) {
    uint16_t port = ephemeral_next_;
    ephemeral_next_ = port == Udp::ephemeral_last ? Udp::ephemeral_first : uint16_t(port + 1);
    if (!ports_.find(port)) return port;
  }
  return 0;
}

Result<UdpSocket> UdpLayer::bind(Udp& udp, const Endpoint& local, InterfaceId interface) {
  Address address =
      local.address.is_any() && !local.address.is_ip6() ? Address(ip4::Addr{}) : local.address;
  bool ours = address.is_ip6()
                  ? address.is_any() || parts_.ip6.is_local_address(address.ip6())
                  : address.is_any() || address.ip4().is_multicast() ||
                        address.ip4().is_broadcast() || parts_.ip4.is_local_address(address.ip4());
  if (!ours) return Status::invalid;  // not an address of this host (no IPv6 groups yet)
  if (interface != no_interface && interface >= parts_.link_count()) return Status::invalid;
  uint16_t port = local.port ? local.port : free_ephemeral_port();
  if (port == 0 || open_ >= Udp::max_sockets) return Status::in_use;
  if (is_bound(Endpoint{address, port}, interface)) return Status::in_use;
  uint32_t index = keel::util::take_slot(slots_, free_slots_);
  Slot& s = slots_[index];
  uint32_t generation = s.generation + 1;
  s = Slot{};
  s.generation = generation;
  s.open = true;
  s.address = address;
  s.port = port;
  s.interface = interface;
  auto [first, inserted] = ports_.try_emplace(port);
  s.next_on_port = inserted ? none : *first;
  *first = index;
  ++open_;
  return UdpSocket(&udp, index, generation);
}

void UdpLayer::unlink_port(uint32_t slot) {
  uint16_t port = slots_[slot].port;
  uint32_t* first = ports_.find(port);
  if (!first) return;
  if (*first == slot) {
    if (slots_[slot].next_on_port == none) {
      ports_.erase(port);
    } else {
      *first = slots_[slot].next_on_port;
    }
    return;
  }
  for (uint32_t i = *first; i != none; i = slots_[i].next_on_port) {
    if (slots_[i].next_on_port == slot) {
      slots_[i].next_on_port = slots_[slot].next_on_port;
      return;
    }
  }
}

void UdpLayer::close(uint32_t slot, uint32_t generation) {
  Slot* s = find(slot, generation);
  if (!s) return;
  unlink_port(slot);
  s->open = false;
  s->read = nullptr;  // (a running handler was moved out: it lives on until it returns)
  s->writable = nullptr;
  s->error = nullptr;
  s->wants_writable = false;
  s->writable_due = false;
  --open_;
  free_slots_.push_back(slot);
}

bool UdpLayer::is_open(uint32_t slot, uint32_t generation) const { return find(slot, generation); }

Endpoint UdpLayer::local(uint32_t slot, uint32_t generation) const {
  const Slot* s = find(slot, generation);
  return s ? Endpoint{s->address, s->port} : Endpoint{};
}

InterfaceId UdpLayer::interface(uint32_t slot, uint32_t generation) const {
  const Slot* s = find(slot, generation);
  return s ? s->interface : no_interface;
}

Status UdpLayer::on_read(uint32_t slot, uint32_t generation, UdpSocket::ReadHandler handler) {
  Slot* s = find(slot, generation);
  if (!s) return Status::closed;
  s->read = std::move(handler);
  ++s->read_version;
  return Status::ok;
}

Status UdpLayer::on_error(uint32_t slot, uint32_t generation, UdpSocket::ErrorHandler handler) {
  Slot* s = find(slot, generation);
  if (!s) return Status::closed;
  s->error = std::move(handler);
  return Status::ok;
}

Status UdpLayer::on_writable(uint32_t slot, uint32_t generation,
                             UdpSocket::WritableHandler handler) {
  Slot* s = find(slot, generation);
  if (!s) return Status::closed;
  s->writable = std::move(handler);
  return Status::ok;
}

void UdpLayer::receive(const Ip4Received& info, PacketPtr packet) {
  if (check_and_queue(info, packet)) return;
  // RFC 1122 §4.1.3.1: port unreachable, but never about a broadcast.
  if (packet && !info.to_broadcast && !info.to_multicast) {
    const uint8_t* header = packet->data() - info.header_len;
    parts_.icmp.send_error(wire::icmp4::unreachable, wire::icmp4::port_unreachable, header,
                           packet->size() + info.header_len, info.in);
  }
}

bool UdpLayer::queue(const Endpoint& source, const Endpoint& destination, InterfaceId in,
                     std::span<const uint8_t> payload, PacketPtr& packet) {
  uint32_t index = lookup(destination.address, destination.port, in);
  if (index == none || !slots_[index].read) {
    ++counters_.drop_no_port;
    return false;
  }
  // The handler runs once the stack is done with the frame (run_handlers),
  // the datagram held until then; the bound only matters when that pass
  // is put off (a handler polling the stack itself).
  if (pending_.size() >= max_pending) {
    ++counters_.drop_queue_full;
    packet = nullptr;  // (no error for this one)
    return false;
  }
  UdpDatagram datagram{source, destination, in, payload};
  pending_.push_back({index, slots_[index].generation, datagram, std::move(packet)});
  // "As soon as possible" without a clock read per datagram: a deadline
  // already past (StackTime keeps it until the wake-up comes, so later
  // datagrams cost one comparison).
  parts_.time.wake_by(0);
  return true;
}

void UdpLayer::run_handlers() {
  if (running_) return;  // (a handler that polls the stack itself)
  running_ = true;
  // By index, each handler moved out of its slot while it runs: it may
  // close the socket, bind again (reusing the slot) or replace itself,
  // and all of that holds. Datagrams for a socket closed meanwhile go.
  std::swap(pending_, delivering_);  // what arrives meanwhile waits for the next step
  for (Pending& p : delivering_) {
    uint32_t index = p.slot;
    Slot* s = find(index, p.generation);
    if (!s || !s->read) {
      ++counters_.drop_no_port;
      continue;
    }
    uint32_t generation = s->generation, version = s->read_version;
    UdpSocket::ReadHandler handler = std::move(s->read);
    s->read = nullptr;
    try {
      handler(p.datagram);
    } catch (...) {
      ++counters_.handler_exceptions;  // the datagram is lost, the socket stays
    }
    Slot& after = slots_[index];  // (slots_ may have grown)
    if (after.open && after.generation == generation && after.read_version == version &&
        !after.read) {
      after.read = std::move(handler);
    }
  }
  delivering_.clear();
  if (!errors_.empty()) run_error_handlers();
  if (writable_due_) run_writable_handlers();
  running_ = false;
}

Status UdpLayer::send(uint32_t slot, uint32_t generation, const Endpoint& destination,
                      std::span<const uint8_t> payload, const Address& from) {
  Slot* s = find(slot, generation);
  if (!s) return Status::closed;
  if (destination.port == 0 || destination.address.is_any()) return Status::invalid;
  bool ip6 = destination.address.is_ip6();
  if (payload.size() > (ip6 ? Udp::max_payload6 : Udp::max_payload)) return Status::too_big;
  if (ip6) return send6(*s, destination, payload, from);
  if (from.is_ip6() || (s->address.is_ip6() && !s->address.is_any())) return Status::invalid;
  ip4::Addr dst = destination.address.ip4();
  // A socket bound to a group or broadcast address sends from the route's.
  ip4::Addr bound = s->address.ip4();
  ip4::Addr source = bound.is_multicast() || bound.is_broadcast() ? ip4::Addr{} : bound;
  // A reply from where the request came: a broadcast or multicast
  // destination means no particular address of ours.
  if (!from.is_any() && !parts_.ip4.is_group_address(from.ip4())) {
    if (!parts_.ip4.is_local_address(from.ip4())) return Status::invalid;
    source = from.ip4();
  }
  auto path = parts_.ip4.route(dst, source, s->interface);
  if (!path) {
    ++counters_.drop_tx_failed;
    return path.status;
  }
  Link& link = parts_.link(path->interface);
  if (link.congested()) {
    s->wants_writable = true;
    ++counters_.drop_tx_failed;
    return Status::would_block;
  }
  auto total = uint32_t(wire::udp_header_size + payload.size());
  auto [packet, h, offload] = link.allocate(total);
  if (!packet) {
    ++counters_.drop_tx_failed;
    return Status::no_buffer;
  }
  if (!payload.empty()) std::memcpy(h + wire::udp_header_size, payload.data(), payload.size());
  wire::UdpRepr header{s->port, destination.port, uint16_t(payload.size())};
  // The NIC completes the checksum when it can (Link::allocate).
  if (offload) {
    header.emit(h, path->source, dst, wire::UdpRepr::Checksum::pseudo_header_only);
    packet->flags |= Packet::checksum_partial;
    packet->csum_start = 0;
    packet->csum_offset = 6;
  } else {
    header.emit(h, path->source, dst);
  }
  Status status = parts_.ip4.send(*path, dst, wire::ip_protocol_udp, std::move(packet));
  ++(status == Status::ok ? counters_.tx : counters_.drop_tx_failed);
  return status;
}

void UdpLayer::writable() {
  for (Slot& s : slots_) {
    if (!s.open || !s.wants_writable) continue;
    s.wants_writable = false;
    s.writable_due = writable_due_ = true;
  }
  if (writable_due_) parts_.time.wake_by(0);
}

void UdpLayer::run_writable_handlers() {
  writable_due_ = false;
  // By index, each from a copy: a handler may send, bind or close.
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i].open || !slots_[i].writable_due) continue;
    slots_[i].writable_due = false;
    UdpSocket::WritableHandler handler = slots_[i].writable;
    if (!handler) continue;
    try {
      handler();
    } catch (...) {
      ++counters_.handler_exceptions;  // the socket stays
    }
  }
}

}  // namespace net
