#include "virtqueue.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace keel::drivers::virtio {

// 2.6.5: the descriptor as the device reads it (little endian: x86 only).
struct Virtqueue::Descriptor {
  uint64_t address;
  uint32_t length;
  uint16_t flags;
  uint16_t next;
};
struct Virtqueue::UsedElement {
  uint32_t id;
  uint32_t length;
};

namespace {

constexpr std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) & ~(a - 1); }

// Offsets inside the block (2.6.2 legacy layout; fine for modern as well).
constexpr std::size_t descriptors_bytes(uint16_t size) { return 16u * size; }
constexpr std::size_t available_bytes(uint16_t size) { return 2 * (3u + size); }
constexpr std::size_t used_bytes(uint16_t size) { return 2 * 3u + 8u * size; }

// 2.6.7.2: the other side wants an event when its event index lies in
// [old, new).
bool need_event(uint16_t event, uint16_t new_index, uint16_t old_index) {
  return uint16_t(new_index - event - 1) < uint16_t(new_index - old_index);
}

// Device memory is ordinary RAM shared with the host: x86 keeps stores in
// order and loads in order, so release/acquire cost nothing but stop the
// compiler; the one store→load ordering (publish, then read the other
// side's flags) needs a full fence.
void release_fence() { std::atomic_thread_fence(std::memory_order_release); }
void acquire_fence() { std::atomic_thread_fence(std::memory_order_acquire); }
void full_fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

}  // namespace

std::unique_ptr<Virtqueue> Virtqueue::create(uint16_t index, uint16_t size, bool event_idx) {
  if (size == 0 || size > max_size || (size & (size - 1)) != 0) return nullptr;
  std::size_t used_offset =
      align_up(descriptors_bytes(size) + available_bytes(size), legacy_alignment);
  std::size_t bytes = used_offset + align_up(used_bytes(size), legacy_alignment);
  void* memory = std::aligned_alloc(legacy_alignment, bytes);
  if (!memory) return nullptr;
  std::memset(memory, 0, bytes);
  return std::unique_ptr<Virtqueue>(
      new (std::nothrow) Virtqueue(index, size, event_idx, static_cast<uint8_t*>(memory), bytes));
}

Virtqueue::Virtqueue(uint16_t index, uint16_t size, bool event_idx, uint8_t* memory,
                     std::size_t bytes)
    : index_(index),
      size_(size),
      event_idx_(event_idx),
      memory_(memory),
      bytes_(bytes),
      used_offset_(align_up(descriptors_bytes(size) + available_bytes(size), legacy_alignment)),
      next_(size),
      token_(size),
      writable_(size),
      chain_length_(size),
      free_count_(size) {
  for (uint16_t i = 0; i < size; ++i) next_[i] = uint16_t(i + 1);
}

Virtqueue::~Virtqueue() { std::free(memory_); }

Virtqueue::Descriptor* Virtqueue::descriptors() const {
  return reinterpret_cast<Descriptor*>(memory_);
}
volatile uint16_t* Virtqueue::available() const {
  return reinterpret_cast<volatile uint16_t*>(memory_ + descriptors_bytes(size_));
}
volatile uint16_t* Virtqueue::used_header() const {
  return reinterpret_cast<volatile uint16_t*>(memory_ + used_offset_);
}
volatile Virtqueue::UsedElement* Virtqueue::used_ring() const {
  return reinterpret_cast<volatile UsedElement*>(memory_ + used_offset_ + 4);
}
volatile uint16_t* Virtqueue::avail_event() const {
  return reinterpret_cast<volatile uint16_t*>(memory_ + used_offset_ + 4 + 8u * size_);
}

uint64_t Virtqueue::descriptor_address() const { return reinterpret_cast<uint64_t>(memory_); }
uint64_t Virtqueue::available_address() const {
  return descriptor_address() + descriptors_bytes(size_);
}
uint64_t Virtqueue::used_address() const { return descriptor_address() + used_offset_; }

bool Virtqueue::add(std::span<const Segment> segments, uint32_t token) {
  if (segments.empty() || segments.size() > free_count_) return false;
  uint16_t head = free_head_;
  uint16_t d = head;
  uint32_t writable = 0;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    bool last = i + 1 == segments.size();
    Descriptor& desc = descriptors()[d];
    desc.address = s.address;
    desc.length = s.length;
    desc.flags = uint16_t((last ? 0 : desc_f_next) | (s.device_writes ? desc_f_write : 0));
    desc.next = last ? 0 : next_[d];
    if (s.device_writes) writable += s.length;
    if (!last) d = next_[d];
  }
  free_head_ = next_[d];
  free_count_ = uint16_t(free_count_ - segments.size());
  token_[head] = token;
  writable_[head] = writable;
  chain_length_[head] = uint16_t(segments.size());
  ++in_flight_;
  available()[2 + (avail_index_ & (size_ - 1))] = head;
  ++avail_index_;
  return true;
}

bool Virtqueue::publish() {
  if (avail_index_ == published_index_) return false;
  release_fence();  // ring entries and descriptors before the index
  available()[1] = avail_index_;
  full_fence();  // the index before reading what the device asked for
  uint16_t old_index = published_index_;
  published_index_ = avail_index_;
  if (event_idx_) return need_event(*avail_event(), avail_index_, old_index);
  return !(used_header()[0] & used_f_no_notify);
}

uint16_t Virtqueue::device_used_index() const { return used_header()[1]; }

bool Virtqueue::has_used() const { return device_used_index() != last_used_; }

std::optional<Virtqueue::Completion> Virtqueue::take_used() {
  for (;;) {
    uint16_t device_index = device_used_index();
    if (device_index == last_used_) return std::nullopt;
    // The ring holds at most size() entries we have not read: an index
    // further ahead is a broken device. Take nothing rather than read
    // entries it has overwritten. (Bogus entries within it fail the id check.)
    if (uint16_t(device_index - last_used_) > size_) {
      ++stats_.bad_index;
      return std::nullopt;
    }
    acquire_fence();  // the index before the entry it covers
    volatile UsedElement& element = used_ring()[last_used_ & (size_ - 1)];
    uint32_t id = element.id;
    uint32_t length = element.length;
    ++last_used_;
    if (event_idx_ && interrupts_wanted_) {
      available()[2 + size_] = last_used_;  // used_event: 2.6.10.2
    }
    if (id >= size_ || chain_length_[id] == 0) {
      ++stats_.bad_id;
      continue;
    }
    Completion c{token_[id], length, true};
    if (length > writable_[id]) {
      ++stats_.bad_length;
      c.length = 0;
      c.length_ok = false;
    }
    uint16_t tail = uint16_t(id);
    for (uint16_t i = 1; i < chain_length_[id]; ++i) tail = next_[tail];
    next_[tail] = free_head_;
    free_head_ = uint16_t(id);
    free_count_ = uint16_t(free_count_ + chain_length_[id]);
    chain_length_[id] = 0;
    --in_flight_;
    return c;
  }
}

void Virtqueue::suppress_interrupts() {
  interrupts_wanted_ = false;
  if (event_idx_) {
    // An event index just behind us: the device passes it again only after
    // wrapping 65536 entries (as Linux does).
    available()[2 + size_] = uint16_t(last_used_ - 1);
  } else {
    available()[0] = avail_f_no_interrupt;
  }
}

bool Virtqueue::enable_interrupts() {
  interrupts_wanted_ = true;
  if (event_idx_) {
    available()[2 + size_] = last_used_;
  } else {
    available()[0] = 0;
  }
  full_fence();  // the request before looking for completions it missed
  return has_used();
}

}  // namespace keel::drivers::virtio
