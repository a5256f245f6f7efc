// virtio-net's receive path: frames into the stack's own buffers, a
// coalesced segment over several of them gathered into one (net.hpp,
// docs/decisions/0093), the ring refilled in one batch.
#include <algorithm>
#include <cstring>
#include <kernel/timers.hpp>

#include "net.hpp"
#include "net_header.hpp"
#include "net_receive.hpp"

namespace keel::drivers::virtio {
namespace {

// When the pool ran dry and the ring is nearly empty, retry this soon
// (the stack returns buffers as it finishes with them).
constexpr auto refill_retry = std::chrono::milliseconds(1);
constexpr uint16_t rx_low_water_divisor = 4;  // a quarter of the ring's share
constexpr uint32_t ethernet_header = 14;      // IEEE 802.3: two MACs and the Ethertype

}  // namespace

std::size_t Net::drain_rx(std::size_t budget) {
  std::size_t taken = 0;
  while (taken < budget) {
    auto c = rx_->take_used();
    if (!c) break;
    ++taken;
    net::PacketPtr packet = take_rx_slot(c->token);
    if (!packet) continue;  // cannot happen: tokens are ours
    taken += receive_one(std::move(packet), *c);
  }
  return taken;
}

net::PacketPtr Net::take_rx_slot(uint32_t token) {
  net::PacketPtr packet = std::move(rx_slots_[token]);
  rx_free_.push_back(token);
  return packet;
}

std::size_t Net::receive_one(net::PacketPtr packet, const Virtqueue::Completion& c) {
  uint32_t room = packet->capacity() - rx_frame_offset;
  if (!c.length_ok || c.length < header_size_ || c.length - header_size_ > room) {
    ++driver_.rx_bad_length;
    ++stats_.rx_dropped;
    return 0;  // the buffer goes back to the pool
  }
  NetHeader header{};
  std::memcpy(&header, packet->buffer() + rx_frame_offset - header_size_, header_size_);
  packet->set_window(rx_frame_offset, c.length - header_size_);
  std::size_t more = 0;
  if (features_ & net_feature::mrg_rxbuf) {
    // 5.1.6.4: the header (in the first buffer only) says how many buffers
    // the frame spans; the device publishes them together.
    if (header.num_buffers == 0 || header.num_buffers > rx_max_buffers_) {
      ++driver_.rx_bad_buffers;
      ++stats_.rx_dropped;
      return 0;
    }
    more = header.num_buffers - 1u;
    if (more > 0 && !gather(packet, more)) return more;  // dropped, counted
  }
  deliver(std::move(packet), header);
  return more;
}

// Takes the `more` buffers that follow `frame`'s first and copies them all
// into one heap packet (decision 0093): the stack parses a frame as one run
// of bytes. False (counted, `frame` emptied) when the device lied or the
// heap is short.
bool Net::gather(net::PacketPtr& frame, std::size_t more) {
  const uint32_t descriptor_offset = rx_frame_offset - header_size_;
  rx_pieces_.clear();
  uint64_t total = frame->size();
  bool whole = true;
  std::size_t took = 0;
  while (took < more) {
    auto c = rx_->take_used();
    if (!c) break;  // fewer than num_buffers published: 5.1.6.4 says together
    ++took;
    net::PacketPtr piece = take_rx_slot(c->token);
    if (!piece || !c->length_ok || c->length > piece->capacity() - descriptor_offset) {
      whole = false;
      continue;
    }
    piece->set_window(descriptor_offset, c->length);  // no header after the first
    total += c->length;
    rx_pieces_.push_back(std::move(piece));
  }
  if (!whole || took < more || total > max_received_frame) {
    ++driver_.rx_bad_buffers;
    ++stats_.rx_dropped;
    rx_pieces_.clear();
    frame.reset();
    return false;
  }
  net::PacketPtr merged = net::allocate_heap_packet(uint32_t(total), rx_frame_offset);
  if (!merged) {
    ++driver_.rx_no_memory;
    ++stats_.rx_dropped;
    rx_pieces_.clear();
    frame.reset();
    return false;
  }
  std::memcpy(merged->append(frame->size()), frame->data(), frame->size());
  for (net::PacketPtr& piece : rx_pieces_)
    std::memcpy(merged->append(piece->size()), piece->data(), piece->size());
  rx_pieces_.clear();  // the buffers go back to the pool
  frame = std::move(merged);
  ++driver_.rx_merged;
  return true;
}

void Net::deliver(net::PacketPtr packet, const NetHeader& header) {
  switch (apply_received_header(header, features_, *packet)) {
    case ReceivedHeader::ok:
      break;
    case ReceivedHeader::bad_checksum:
      ++driver_.rx_bad_checksum;
      ++stats_.rx_dropped;
      return;
    case ReceivedHeader::bad_segmentation:
      ++driver_.rx_bad_segmentation;
      ++stats_.rx_dropped;
      return;
  }
  uint32_t frame_size = packet->size();
  if (frame_size > uint32_t(mtu_) + ethernet_header) ++driver_.rx_large;
  ++stats_.rx_packets;
  stats_.rx_bytes += frame_size;
  if (!receive_) {
    ++stats_.rx_dropped;
    return;
  }
  receive_(std::move(packet));
}

void Net::refill_rx() {
  uint32_t descriptor_offset = rx_frame_offset - header_size_;
  while (!rx_free_.empty() && rx_->free_descriptors() > 0 && rx_->in_flight() < rx_fill_) {
    net::PacketPtr packet = pool_->allocate(0);
    if (!packet) {
      ++driver_.rx_no_buffer;
      break;
    }
    uint32_t token = rx_free_.back();
    Virtqueue::Segment segment{physical(packet->buffer() + descriptor_offset),
                               packet->capacity() - descriptor_offset, true};
    if (!rx_->add({&segment, 1}, token)) break;
    rx_free_.pop_back();
    rx_slots_[token] = std::move(packet);
  }
  if (rx_->publish()) {
    transport_->notify(receive_queue);
    ++driver_.rx_kicks;
  }
  // Never below what one merged frame needs: QEMU waits for that much.
  uint16_t low_water = std::max<uint16_t>(rx_fill_ / rx_low_water_divisor, rx_max_buffers_);
  if (rx_->in_flight() < low_water && !refill_timer_) {
    refill_timer_ = os::Timers::oneshot(refill_retry, [this](os::Timers::id_t) {
      refill_timer_ = os::Timers::invalid_id;
      refill_rx();
    });
  }
}

}  // namespace keel::drivers::virtio
