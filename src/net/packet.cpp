// PacketPool: one block of equal buffers and a free list; heap packets
// (packet.hpp).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <net/packet.hpp>
#include <new>

#include "wire/checksum.hpp"

namespace net {
namespace {
// Cache-line aligned so a device and the CPU never share a line across buffers.
constexpr std::size_t buffer_alignment = 64;
}  // namespace

namespace {

// A Packet and its buffer in one allocation, freed on release.
class HeapPacket final : public PacketOwner {
 public:
  explicit HeapPacket(uint32_t capacity) { packet_.attach(buffer(), capacity, this); }
  Packet* packet() { return &packet_; }
  void release(Packet*) noexcept override {
    this->~HeapPacket();
    ::operator delete(this);
  }

 private:
  uint8_t* buffer() { return reinterpret_cast<uint8_t*>(this + 1); }
  Packet packet_;
};

}  // namespace

void complete_partial_checksum(Packet& p) noexcept {
  if (!(p.flags & Packet::checksum_partial)) return;
  p.flags &= ~Packet::checksum_partial;
  uint32_t start = p.csum_start, field = uint32_t(p.csum_start) + p.csum_offset;
  if (start >= p.size() || field + 2 > p.size()) return;
  uint8_t* d = p.data();
  // The field holds the pseudo-header sum: adding everything from start on
  // (the field included) gives the full sum (RFC 1071).
  uint16_t sum = uint16_t(~wire::checksum_fold(wire::checksum_add(0, d + start, p.size() - start)));
  wire::store16(d + field, sum == 0 ? 0xffff : sum);  // RFC 768: 0 means "no checksum"
}

PacketPtr allocate_heap_packet(uint32_t size, uint32_t headroom) noexcept {
  uint64_t capacity = uint64_t(size) + headroom;
  if (capacity > UINT32_MAX - sizeof(HeapPacket)) return nullptr;
  void* memory = ::operator new(sizeof(HeapPacket) + capacity, std::nothrow);
  if (!memory) return nullptr;
  auto* heap = new (memory) HeapPacket(uint32_t(capacity));
  heap->packet()->reset(headroom);
  return PacketPtr(heap->packet());
}

PacketPtr owned_with_headroom(PacketPtr payload, uint32_t front) noexcept {
  if (payload->owner() && payload->headroom() >= front) return payload;
  const uint32_t len = payload->size();
  PacketPtr copy = allocate_heap_packet(len, std::max(front, Packet::default_headroom));
  if (!copy) return nullptr;
  std::memcpy(copy->append(len), payload->data(), len);
  copy->flags = payload->flags;
  copy->csum_start = payload->csum_start;
  copy->csum_offset = payload->csum_offset;
  copy->gso_size = payload->gso_size;
  return copy;
}

PacketPool::PacketPool(std::size_t count, uint32_t buffer_size)
    : buffer_size_((buffer_size + buffer_alignment - 1) / buffer_alignment * buffer_alignment),
      count_(count),
      packets_(new Packet[count]) {
  std::size_t bytes = count * buffer_size_;
  memory_ =
      static_cast<uint8_t*>(std::aligned_alloc(buffer_alignment, bytes ? bytes : buffer_alignment));
  if (!memory_) throw std::bad_alloc();
  free_.reserve(count);
  for (std::size_t i = count; i-- > 0;) {
    packets_[i].attach(memory_ + i * buffer_size_, buffer_size_, this);
    packets_[i].cookie = uint32_t(i);
    free_.push_back(&packets_[i]);
  }
}

PacketPool::~PacketPool() { std::free(memory_); }

PacketPtr PacketPool::allocate(uint32_t headroom) noexcept {
  if (free_.empty()) return nullptr;
  Packet* packet = free_.back();
  free_.pop_back();
  packet->reset(headroom);
  return PacketPtr(packet);
}

void PacketPool::release(Packet* packet) noexcept {
  // reserve(count) in the constructor: push_back never allocates here.
  free_.push_back(packet);
}

}  // namespace net
