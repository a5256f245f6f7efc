// Packet buffers: the unit that moves between a NIC driver and the stack, and
// between the stack's layers, without being copied (docs/decisions/0020).
//
// A Packet is a fixed buffer with a movable window [offset, offset + size):
//   buffer ─┬─ headroom ─┬──────── data (size) ────────┬─ tailroom ─┐
//           0          offset                   offset+size      capacity
// Receiving, each layer parses its header and pull()s it: only the offset
// moves. Sending, each layer push()es its header into the headroom in front
// of the payload. A driver may itself push its device header (e.g. the 12
// byte virtio-net header) in front of the Ethernet header.
//
// Ownership: a packet is always held by exactly one PacketPtr. Handing a
// PacketPtr on (driver → stack on receive, stack → driver on transmit) hands
// the buffer on; whoever drops the last PacketPtr returns the buffer to the
// PacketOwner it came from (a PacketPool, a reassembly slot, ...). So a
// received buffer the stack turns around (an echo reply built in place) goes
// back to the driver's pool after the driver has transmitted it.
// A PacketOwner must outlive every packet it handed out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace net {

class Packet;

// Where a buffer goes back to when its last PacketPtr lets go.
class PacketOwner {
 public:
  virtual void release(Packet* packet) noexcept = 0;

 protected:
  ~PacketOwner() = default;
};

struct PacketRelease {
  void operator()(Packet* packet) const noexcept;
};
using PacketPtr = std::unique_ptr<Packet, PacketRelease>;

class Packet {
 public:
  // A full Ethernet frame (1514) plus headroom fits; two buffers per page.
  static constexpr uint32_t default_buffer_size = 2048;
  // Enough for a device header (virtio-net: 12 bytes; keep within
  // nic_headroom) and Ethernet + IPv4 (with options) + UDP/ICMP headers.
  static constexpr uint32_t default_headroom = 128;
  static constexpr uint32_t nic_headroom = 32;

  // Offload flags (see Nic::Offloads).
  enum Flags : uint32_t {
    // Receive: the device verified the L3/L4 checksums (virtio DATA_VALID or
    // NEEDS_CSUM from a trusted host): the stack skips its own check.
    checksum_verified = 1u << 0,
    // The L4 checksum field holds only the pseudo-header sum; whoever sends
    // it on completes it: the device adds the ones' complement sum of bytes
    // [csum_start, end) and stores it at csum_start + csum_offset (virtio
    // NEEDS_CSUM semantics), or software does. Set on transmit by the stack
    // (offload), and on receive by a driver whose host sent it so (a router
    // forwards it partial). csum_start counts from data().
    checksum_partial = 1u << 1,
    // Transmit: a TCP segment larger than the link's MTU that the device
    // cuts into segments of gso_size payload bytes each (virtio-net's
    // HOST_TSO4/6, Nic::Offloads::tso4/tso6). Always with checksum_partial.
    // Receive: a segment the host coalesced from ones of gso_size payload
    // bytes (GUEST_TSO4/6, Nic::Offloads::rx_segmentation); forwarded, it
    // leaves whole on a NIC with TSO or is cut in software (decision 0093).
    segmentation_offload = 1u << 2,
  };

  Packet() noexcept = default;
  Packet(uint8_t* buffer, uint32_t capacity, PacketOwner* owner) noexcept
      : buffer_(buffer), capacity_(capacity), owner_(owner) {}
  // For owners that keep Packets in arrays: binds an empty Packet to a buffer.
  void attach(uint8_t* buffer, uint32_t capacity, PacketOwner* owner) noexcept {
    buffer_ = buffer;
    capacity_ = capacity;
    owner_ = owner;
    offset_ = size_ = 0;
  }
  Packet(const Packet&) = delete;
  Packet& operator=(const Packet&) = delete;

  uint8_t* data() noexcept { return buffer_ + offset_; }
  const uint8_t* data() const noexcept { return buffer_ + offset_; }
  uint32_t size() const noexcept { return size_; }
  uint32_t headroom() const noexcept { return offset_; }
  uint32_t tailroom() const noexcept { return capacity_ - offset_ - size_; }
  uint8_t* buffer() noexcept { return buffer_; }
  uint32_t capacity() const noexcept { return capacity_; }
  PacketOwner* owner() const noexcept { return owner_; }

  // Drops n bytes at the front (a parsed header). False, unchanged, if the
  // packet is shorter: callers then drop it as truncated. A partial
  // checksum's csum_start moves along, as with push().
  bool pull(uint32_t n) noexcept {
    if (n > size_) return false;
    offset_ += n;
    size_ -= n;
    if (flags & checksum_partial) csum_start = uint16_t(csum_start >= n ? csum_start - n : 0);
    return true;
  }
  // Opens n bytes at the front for a header; nullptr without headroom.
  // A partial checksum's csum_start moves along, so it keeps naming the
  // same byte as the layers below push their headers.
  uint8_t* push(uint32_t n) noexcept {
    if (n > offset_) return nullptr;
    offset_ -= n;
    size_ += n;
    if (flags & checksum_partial) csum_start = uint16_t(csum_start + n);
    return data();
  }
  // Opens n bytes at the end; nullptr without tailroom.
  uint8_t* append(uint32_t n) noexcept {
    if (n > tailroom()) return nullptr;
    uint8_t* end = data() + size_;
    size_ += n;
    return end;
  }
  // Shortens the data (e.g. Ethernet padding past the IP total length).
  void trim(uint32_t new_size) noexcept {
    if (new_size < size_) size_ = new_size;
  }
  // Empties the packet, leaving `headroom` bytes in front (clamped to capacity).
  void reset(uint32_t headroom = default_headroom) noexcept {
    offset_ = headroom < capacity_ ? headroom : capacity_;
    size_ = 0;
    flags = 0;
    csum_start = csum_offset = 0;
    gso_size = 0;
  }
  // Sets the window directly: for drivers, whose device wrote `size` bytes at
  // `offset` (e.g. after its own header). Clamped to the buffer.
  void set_window(uint32_t offset, uint32_t size) noexcept {
    offset_ = offset < capacity_ ? offset : capacity_;
    size_ = size < capacity_ - offset_ ? size : capacity_ - offset_;
  }

  uint32_t flags = 0;
  uint16_t csum_start = 0;   // for checksum_partial
  uint16_t csum_offset = 0;  // for checksum_partial
  uint16_t gso_size = 0;     // for segmentation_offload: payload bytes per segment
  // Free for the current holder (driver ring index, owner's slot number...).
  uint32_t cookie = 0;

 private:
  uint8_t* buffer_ = nullptr;
  uint32_t capacity_ = 0;
  uint32_t offset_ = 0;
  uint32_t size_ = 0;
  PacketOwner* owner_ = nullptr;
};

inline void PacketRelease::operator()(Packet* packet) const noexcept {
  if (packet && packet->owner()) packet->owner()->release(packet);
}

// Completes a partial checksum (Packet::checksum_partial) in software, for
// a device that cannot; clears the flag. Out-of-range offsets leave the
// packet as it is (the flag cleared: nothing valid to complete).
void complete_partial_checksum(Packet& packet) noexcept;

// A buffer of any size from the heap, for a datagram larger than a pool
// buffer (a reassembled one; a large UDP datagram being built), reset to
// `headroom` with room for `size` bytes after it. It is freed when its
// PacketPtr lets go. nullptr when memory is short.
PacketPtr allocate_heap_packet(uint32_t size,
                               uint32_t headroom = Packet::default_headroom) noexcept;

// `payload` as a packet that may wait in a queue and take `front` bytes of headers before
// its data: itself when it has an owner and that much headroom; else a heap copy of its data
// and checksum flags (a buffer on the caller's stack must not outlive the send, one without
// headroom cannot take the headers). nullptr when memory is short.
PacketPtr owned_with_headroom(PacketPtr payload, uint32_t front) noexcept;

// A fixed set of equal buffers allocated once, in one contiguous block (so a
// driver can hand them to a device: on kvm memory is identity mapped).
// allocate() and release are O(1) with no heap allocation. Exhaustion is a
// normal condition: allocate() returns nullptr and the caller drops and counts.
class PacketPool final : public PacketOwner {
 public:
  explicit PacketPool(std::size_t count, uint32_t buffer_size = Packet::default_buffer_size);
  ~PacketPool();
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;

  // A buffer reset to `headroom`, or nullptr when all are in use.
  PacketPtr allocate(uint32_t headroom = Packet::default_headroom) noexcept;
  std::size_t available() const noexcept { return free_.size(); }
  std::size_t count() const noexcept { return count_; }
  uint32_t buffer_size() const noexcept { return buffer_size_; }
  // The block holding all buffers (count() * buffer_size() bytes).
  uint8_t* memory() const noexcept { return memory_; }

  void release(Packet* packet) noexcept override;

 private:
  uint32_t buffer_size_;
  uint8_t* memory_;
  std::size_t count_;
  std::unique_ptr<Packet[]> packets_;
  std::vector<Packet*> free_;  // reserved to count(): never reallocates
};

}  // namespace net
