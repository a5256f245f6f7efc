// The split virtqueue (virtio 1.1, 2.6): a descriptor table, the available
// ring the driver fills and the used ring the device fills, laid out in one
// page-aligned block the legacy way (2.6.2) so every transport can take it.
//
// Only the driver's own bookkeeping is trusted: the free list, the chain
// of each head and its capacity live in private memory, and every id and
// length the device writes into the used ring is checked against them;
// bad ones are counted and skipped, never followed.
//
// Portable (no arch code), so host unit tests can play the device.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace keel::drivers::virtio {

class Virtqueue {
 public:
  // 2.6.5, 2.6.6, 2.6.8.
  static constexpr uint16_t desc_f_next = 1;
  static constexpr uint16_t desc_f_write = 2;
  static constexpr uint16_t avail_f_no_interrupt = 1;
  static constexpr uint16_t used_f_no_notify = 1;
  static constexpr uint32_t legacy_alignment = 4096;  // 2.6.2 "Legacy Interfaces"
  static constexpr uint16_t max_size = 32768;

  struct Segment {
    uint64_t address;
    uint32_t length;
    bool device_writes;
  };
  struct Completion {
    uint32_t token;
    uint32_t length;  // bytes the device wrote, checked against the chain
    bool length_ok;   // false: the device claimed more than it was given
  };
  struct Stats {
    uint64_t bad_id = 0;      // used id out of range or not in flight
    uint64_t bad_length = 0;  // used length beyond the chain's writable bytes
    uint64_t bad_index = 0;   // used index ran ahead of what was ever posted
  };

  // `size`: a power of two, 1..32768. `event_idx`: VIRTIO_F_EVENT_IDX was
  // negotiated (2.6.7.2, 2.6.10.2). nullptr when out of memory.
  static std::unique_ptr<Virtqueue> create(uint16_t index, uint16_t size, bool event_idx);
  ~Virtqueue();
  Virtqueue(const Virtqueue&) = delete;
  Virtqueue& operator=(const Virtqueue&) = delete;

  uint16_t index() const { return index_; }
  uint16_t size() const { return size_; }
  uint16_t free_descriptors() const { return free_count_; }
  uint16_t in_flight() const { return in_flight_; }
  const Stats& stats() const { return stats_; }

  // Guest-physical addresses (memory is identity mapped on kvm).
  uint64_t descriptor_address() const;
  uint64_t available_address() const;
  uint64_t used_address() const;
  // The whole block, for legacy transports that take one page frame number.
  uint64_t base_address() const { return descriptor_address(); }

  // Queues one chain; `token` comes back with its completion. False when
  // fewer than segments.size() descriptors are free (nothing is queued).
  bool add(std::span<const Segment> segments, uint32_t token);
  // Makes the chains added since the last publish visible to the device.
  // Returns whether the device asked to be notified (2.6.13.6, 2.6.7.2).
  bool publish();

  // The next chain the device finished, or nullopt when there is none.
  std::optional<Completion> take_used();
  bool has_used() const;

  // Asks the device not to interrupt (a hint: 2.6.7). While draining.
  void suppress_interrupts();
  // Asks for interrupts again. Returns true if completions arrived in
  // between: the caller must drain again or it may wait forever.
  bool enable_interrupts();

 private:
  Virtqueue(uint16_t index, uint16_t size, bool event_idx, uint8_t* memory, std::size_t bytes);
  struct Descriptor;
  struct UsedElement;
  Descriptor* descriptors() const;
  volatile uint16_t* available() const;    // flags, idx, ring[size], used_event
  volatile uint16_t* used_header() const;  // flags, idx
  volatile UsedElement* used_ring() const;
  volatile uint16_t* avail_event() const;
  uint16_t device_used_index() const;

  uint16_t index_, size_;
  bool event_idx_;
  uint8_t* memory_;
  std::size_t bytes_;
  std::size_t used_offset_;

  // Private bookkeeping: never read back from shared memory.
  std::vector<uint16_t> next_;          // free list and chain links
  std::vector<uint32_t> token_;         // per head
  std::vector<uint32_t> writable_;      // per head: bytes the device may write
  std::vector<uint16_t> chain_length_;  // per head; 0 = not in flight
  uint16_t free_head_ = 0, free_count_ = 0, in_flight_ = 0;
  uint16_t avail_index_ = 0;      // next avail ring slot (free-running)
  uint16_t published_index_ = 0;  // avail idx the device last saw
  uint16_t last_used_ = 0;        // used entries consumed (free-running)
  bool interrupts_wanted_ = true;
  Stats stats_;
};

}  // namespace keel::drivers::virtio
