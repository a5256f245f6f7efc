#include "memory_nic.hpp"

#include <algorithm>
#include <cstring>

#include "net/link/tcp_segmentation.hpp"

namespace net {

MemoryNic::MemoryNic(ethernet::Addr mac, uint16_t mtu, std::size_t buffers)
    : mac_(mac), mtu_(mtu), pool_(buffers) {}

std::size_t MemoryNic::transmit(std::span<PacketPtr> frames) {
  std::size_t taken = 0;
  for (PacketPtr& frame : frames) {
    if (!frame) continue;
    if (room_ != unlimited_room) {
      if (room_ == 0) {
        ++stats_.tx_dropped;
        frame.reset();
        continue;
      }
      --room_;
    }
    ++taken;
    ++stats_.tx_packets;
    stats_.tx_bytes += frame->size();
    largest_frame = std::max<std::size_t>(largest_frame, frame->size());
    if (frame->flags & Packet::segmentation_offload) {
      // As a TSO device: MTU-sized frames with whole checksums on the wire.
      ++segmented_frames;
      if (!segment_tcp(*frame, [this](std::span<const uint8_t> s) {
            transmitted.emplace_back(s.begin(), s.end());
          }))
        ++stats_.tx_dropped;
    } else {
      transmitted.emplace_back(frame->data(), frame->data() + frame->size());
    }
    last_flags = frame->flags;
    last_csum_start = frame->csum_start;
    last_csum_offset = frame->csum_offset;
    frame.reset();
  }
  return taken;
}

bool MemoryNic::inject(const uint8_t* data, std::size_t len, uint32_t packet_flags) {
  PacketPtr packet = pool_.allocate(Packet::nic_headroom);
  uint8_t* p = packet ? packet->append(uint32_t(len)) : nullptr;
  if (!p || !receive_) {
    ++stats_.rx_dropped;
    return false;
  }
  if (len) std::memcpy(p, data, len);
  packet->flags = packet_flags;
  ++stats_.rx_packets;
  stats_.rx_bytes += len;
  receive_(std::move(packet));
  if (after_receive_) after_receive_();
  return true;
}

bool MemoryNic::inject_coalesced(const Frame& frame, uint16_t gso_size, uint16_t csum_start) {
  constexpr uint16_t tcp_checksum_offset = 16;  // RFC 9293 §3.1
  PacketPtr packet = allocate_heap_packet(uint32_t(frame.size()));
  if (!packet || !receive_) {
    ++stats_.rx_dropped;
    return false;
  }
  std::memcpy(packet->append(uint32_t(frame.size())), frame.data(), frame.size());
  packet->flags =
      Packet::segmentation_offload | Packet::checksum_partial | Packet::checksum_verified;
  packet->gso_size = gso_size;
  packet->csum_start = csum_start;
  packet->csum_offset = tcp_checksum_offset;
  ++stats_.rx_packets;
  stats_.rx_bytes += frame.size();
  receive_(std::move(packet));
  if (after_receive_) after_receive_();
  return true;
}

void MemoryNic::connect(MemoryNic& peer) {
  peer_ = &peer;
  peer.peer_ = this;
}

std::size_t MemoryNic::pump(MemoryNic& a, MemoryNic& b, std::size_t limit) {
  std::size_t moved = 0;
  while (moved < limit && (!a.transmitted.empty() || !b.transmitted.empty())) {
    if (!a.transmitted.empty()) {
      b.inject(a.pop());
      ++moved;
    }
    if (!b.transmitted.empty()) {
      a.inject(b.pop());
      ++moved;
    }
  }
  return moved;
}

}  // namespace net
