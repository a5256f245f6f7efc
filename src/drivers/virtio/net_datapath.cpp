// virtio-net's data path: the event, and transmit from the stack's own
// buffers in batches (see net.hpp); receive is in net_rx.cpp.
#include <cstring>
#include <kernel/events.hpp>
#include <kernel/timers.hpp>

#include "net.hpp"
#include "net_header.hpp"
#include "net_receive.hpp"

namespace keel::drivers::virtio {
namespace {

// Completions handled per event before yielding to other events.
constexpr std::size_t rx_budget = 128;
// While frames are in flight and no event comes, reap them this often.
constexpr auto tx_reap_period = std::chrono::milliseconds(1);

}  // namespace

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
    switch (::net::virtio_net::transmit_header(*packet, transmitted_offloads(features_), header)) {
      case ::net::virtio_net::TransmitHeader::ok:
        break;
      case ::net::virtio_net::TransmitHeader::software_checksum:
        ++driver_.tx_software_checksum;
        break;
      case ::net::virtio_net::TransmitHeader::bad_segmentation:
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
