// The earliest of many connections' deadlines: a binary min-heap of
// (deadline, slot) with each slot's position kept, so a connection's
// deadline moves in O(log n) and the earliest is read in O(1). The stack
// asks its clock for one wake-up at earliest() (docs/net/adding-a-protocol.md).
#pragma once
#include <cstdint>
#include <vector>

namespace net::tcp {

class Deadlines {
 public:
  static constexpr uint64_t never = UINT64_MAX;

  // Sets (or moves, or with `never` removes) the deadline of `slot`.
  void set(uint32_t slot, uint64_t deadline) {
    if (slot >= position_.size()) position_.resize(slot + 1, absent);
    uint32_t at = position_[slot];
    if (deadline == never) {
      if (at != absent) remove_at(at);
      return;
    }
    if (at == absent) {
      at = uint32_t(heap_.size());
      heap_.push_back({deadline, slot});
      position_[slot] = at;
      up(at);
      return;
    }
    uint64_t before = heap_[at].deadline;
    heap_[at].deadline = deadline;
    if (deadline < before)
      up(at);
    else
      down(at);
  }
  uint64_t get(uint32_t slot) const {
    return slot < position_.size() && position_[slot] != absent ? heap_[position_[slot]].deadline
                                                                : never;
  }
  uint64_t earliest() const { return heap_.empty() ? never : heap_.front().deadline; }
  // The slot whose deadline is earliest; only when not empty().
  uint32_t earliest_slot() const { return heap_.front().slot; }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  static constexpr uint32_t absent = UINT32_MAX;
  struct Entry {
    uint64_t deadline;
    uint32_t slot;
  };

  void place(uint32_t at, Entry e) {
    heap_[at] = e;
    position_[e.slot] = at;
  }
  void up(uint32_t at) {
    Entry e = heap_[at];
    while (at > 0) {
      uint32_t parent = (at - 1) / 2;
      if (heap_[parent].deadline <= e.deadline) break;
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, e);
  }
  void down(uint32_t at) {
    Entry e = heap_[at];
    auto n = uint32_t(heap_.size());
    for (;;) {
      uint32_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1].deadline < heap_[child].deadline) ++child;
      if (heap_[child].deadline >= e.deadline) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, e);
  }
  void remove_at(uint32_t at) {
    position_[heap_[at].slot] = absent;
    Entry last = heap_.back();
    heap_.pop_back();
    if (at == heap_.size()) return;
    place(at, last);
    up(at);
    down(position_[last.slot]);
  }

  std::vector<Entry> heap_;
  std::vector<uint32_t> position_;  // slot -> index in heap_, or absent
};

}  // namespace net::tcp
