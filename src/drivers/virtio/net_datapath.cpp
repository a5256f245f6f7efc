// virtio-net's data path: the event, and transmit from the stack's own
// buffers in batches (see net.hpp); receive is in net_rx.cpp.
#include <cstring>
#include <kernel/events.hpp>
#include <kernel/timers.hpp>

#include "net.hpp"
#include "net_header.hpp"

namespace keel::drivers::virtio {
namespace {

// Completions handled per event before yielding to other events.
constexpr std::size_t rx_budget = 128;
// While frames are in flight and no event comes, reap them this often.
constexpr auto tx_reap_period = std::chrono::milliseconds(1);
constexpr uint32_t ethertype_offset = 12;  // IEEE 802.3: after two MACs
constexpr uint16_t ethertype_ip4 = 0x0800, ethertype_ip6 = 0x86dd;
constexpr uint32_t tcp_data_offset = 12;  // RFC 9293 §3.1: the header length in words
constexpr uint32_t tcp_header_min = 20;

}  // namespace

// 5.1.6.2: a segment the device cuts up: its kind (by the Ethertype), the
// payload per segment, and hdr_len, the bytes in front of the TCP payload
// (Ethernet + IP + TCP with options) that every segment repeats. False
// when the device did not take that kind or the headers are not whole.
bool Net::segmentation_header(const net::Packet& packet, NetHeader& header) const {
  const uint8_t* frame = packet.data();
  uint32_t tcp = header.csum_start;
  if (!(header.flags & NetHeader::flag_needs_csum) || packet.gso_size == 0 ||
      tcp + tcp_header_min > packet.size())
    return false;
  uint16_t type = uint16_t(frame[ethertype_offset] << 8 | frame[ethertype_offset + 1]);
  if (type == ethertype_ip4 && (features_ & net_feature::host_tso4)) {
    header.gso_type = NetHeader::gso_tcpv4;
  } else if (type == ethertype_ip6 && (features_ & net_feature::host_tso6)) {
    header.gso_type = NetHeader::gso_tcpv6;
  } else {
    return false;
  }
  uint32_t hdr_len = tcp + (frame[tcp + tcp_data_offset] >> 4) * 4u;
  if (hdr_len > packet.size()) return false;
  header.hdr_len = uint16_t(hdr_len);
  header.gso_size = packet.gso_size;
  return true;
}

void Net::handle_event() {
  ++driver_.events;
  transport_->acknowledge_interrupt();
  rx_->suppress_interrupts();
  in_handler_ = true;
  std::size_t taken = drain_rx(rx_budget);
  reap_tx();  // first: buffers it frees can refill the receive ring
  refill_rx();
  in_handler_ = false;
  kick_tx();  // the replies the stack sent while we delivered: one kick
  tell_transmit_ready();
  arm_tx_reaping();
  if (taken >= rx_budget || rx_->has_used()) {
    os::Events::trigger(event_);  // more to do: after the other events
  } else if (rx_->enable_interrupts()) {
    os::Events::trigger(event_);  // arrived while interrupts were off
  }
}

// Armed once, not pushed back on every send: under load events reap anyway,
// and the timer costs one wake-up a millisecond at most.
void Net::arm_tx_reaping() {
  if (reap_armed_ || tx_->in_flight() == 0) return;
  reap_armed_ = true;
  os::Timers::arm(reap_timer_, tx_reap_period);
}

void Net::on_reap_timer() {
  reap_armed_ = false;
  reap_tx();
  if (tx_->in_flight() > 0 && tx_reaped_ == tx_reaped_at_timer_) {
    // Nothing finished for a whole period: notify again. A spurious
    // notification costs the device one look at the ring.
    transport_->notify(transmit_queue);
    ++driver_.tx_rekicks;
  }
  tx_reaped_at_timer_ = tx_reaped_;
  os::Events::trigger(event_);
}

// The stack waited for room and there is some: say so (once).
void Net::tell_transmit_ready() {
  if (!tx_waiting_ || tx_free_.empty() || tx_->free_descriptors() == 0) return;
  tx_waiting_ = false;
  tx_->suppress_interrupts();
  if (transmit_ready_) transmit_ready_();
}

std::size_t Net::transmit_room() {
  reap_tx();
  std::size_t room = std::min<std::size_t>(tx_free_.size(), tx_->free_descriptors());
  if (room == 0 && !tx_waiting_) {
    // Interrupt when the device finishes a frame; handle_event tells the stack.
    tx_waiting_ = true;
    ++driver_.tx_full_waits;
    if (tx_->enable_interrupts()) os::Events::trigger(event_);
  }
  return room;
}

std::size_t Net::reap_tx() {
  std::size_t reaped = 0;
  while (auto c = tx_->take_used()) {
    tx_slots_[c->token].reset();  // back to its owner
    tx_free_.push_back(c->token);
    ++reaped;
  }
  tx_reaped_ += reaped;
  return reaped;
}

void Net::kick_tx() {
  if (!tx_kick_pending_) return;
  tx_kick_pending_ = false;
  if (tx_->publish()) {
    transport_->notify(transmit_queue);
    ++driver_.tx_kicks;
  }
}

std::size_t Net::transmit(std::span<net::PacketPtr> frames) {
  reap_tx();
  std::size_t queued = 0;
  for (net::PacketPtr& frame : frames) {
    if (!frame) continue;
    net::PacketPtr packet = std::move(frame);
    uint32_t frame_size = packet->size();
    if (tx_free_.empty() || tx_->free_descriptors() == 0) {
      ++driver_.tx_queue_full;
      ++stats_.tx_dropped;
      continue;
    }
    NetHeader header{};
    if (packet->flags & net::Packet::checksum_partial) {
      if (features_ & net_feature::csum) {
        header.flags = NetHeader::flag_needs_csum;
        header.csum_start = packet->csum_start;
        header.csum_offset = packet->csum_offset;
      } else {
        net::complete_partial_checksum(*packet);
        ++driver_.tx_software_checksum;
      }
    }
    if ((packet->flags & net::Packet::segmentation_offload) &&
        !segmentation_header(*packet, header)) {
      ++driver_.tx_bad_segmentation;
      ++stats_.tx_dropped;
      continue;
    }
    uint8_t* h = packet->push(header_size_);
    if (!h) {
      ++stats_.tx_dropped;  // the stack left no headroom: its bug, counted
      continue;
    }
    std::memcpy(h, &header, header_size_);
    uint32_t token = tx_free_.back();
    Virtqueue::Segment segment{physical(packet->data()), packet->size(), false};
    if (!tx_->add({&segment, 1}, token)) {
      ++driver_.tx_queue_full;
      ++stats_.tx_dropped;
      continue;
    }
    tx_free_.pop_back();
    tx_slots_[token] = std::move(packet);
    ++stats_.tx_packets;
    stats_.tx_bytes += frame_size;
    ++queued;
  }
  if (queued) {
    tx_kick_pending_ = true;
    if (!in_handler_) {
      kick_tx();
      arm_tx_reaping();
    }
  }
  return queued;
}

net::PacketPtr Net::allocate_packet() { return pool_->allocate(net::Packet::default_headroom); }

}  // namespace keel::drivers::virtio
