// A hash map of fixed capacity in one array: open addressing with linear
// probing and backward-shift deletion (no tombstones), so lookups stay short
// whatever was inserted and erased before. The array is allocated once, in
// the constructor; inserting never allocates, and a full map says so instead
// of growing. For the stack's bounded tables (fragments in reassembly,
// connections, flows), whose keys come from the network: give it a keyed
// hash (siphash.hpp) so that no sender can aim keys at one probe chain.
//
// Pointers to values stay valid until the next insertion or erasure.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace keel::util {

template <class Key, class Value, class Hash>
class FlatMap {
 public:
  // Room for `max_entries`; the array has at least twice as many slots, so
  // probe chains stay short even when the map is full.
  explicit FlatMap(std::size_t max_entries, Hash hash = {})
      : max_entries_(max_entries),
        mask_(std::bit_ceil(max_entries < 4 ? std::size_t(8) : 2 * max_entries) - 1),
        slots_(new Slot[mask_ + 1]),
        hash_(std::move(hash)) {}

  std::size_t size() const { return size_; }
  std::size_t max_entries() const { return max_entries_; }
  bool full() const { return size_ >= max_entries_; }

  Value* find(const Key& key) {
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      if (!slots_[i].used) return nullptr;
      if (slots_[i].key == key) return &slots_[i].value;
    }
  }
  const Value* find(const Key& key) const { return const_cast<FlatMap*>(this)->find(key); }

  // The value for `key`, and whether it was inserted now (then it is
  // `Value{}`). {nullptr, false} when the key is new and the map is full.
  std::pair<Value*, bool> try_emplace(const Key& key) {
    std::size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (!slots_[i].used) break;
      if (slots_[i].key == key) return {&slots_[i].value, false};
    }
    if (full()) return {nullptr, false};
    slots_[i].used = true;
    slots_[i].key = key;
    slots_[i].value = Value{};
    ++size_;
    return {&slots_[i].value, true};
  }

  bool erase(const Key& key) {
    std::size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
    }
    // Backward shift: pull later entries of the chain into the hole unless
    // their home lies cyclically in (hole, j], where they already are reachable.
    for (std::size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      std::size_t h = home(slots_[j].key);
      bool reachable = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (reachable) continue;
      slots_[i].key = std::move(slots_[j].key);
      slots_[i].value = std::move(slots_[j].value);
      i = j;
    }
    slots_[i].used = false;
    slots_[i].value = Value{};
    --size_;
    return true;
  }

  void clear() {
    for (std::size_t i = 0; i <= mask_; ++i) slots_[i] = Slot{};
    size_ = 0;
  }

  // fn(const Key&, Value&) for every entry; fn must not insert or erase.
  template <class Fn>
  void for_each(Fn&& fn) {
    for (std::size_t i = 0; i <= mask_; ++i)
      if (slots_[i].used) fn(static_cast<const Key&>(slots_[i].key), slots_[i].value);
  }

 private:
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
  };

  std::size_t home(const Key& key) const { return std::size_t(hash_(key)) & mask_; }

  std::size_t max_entries_;
  std::size_t mask_;
  std::unique_ptr<Slot[]> slots_;
  Hash hash_;
  std::size_t size_ = 0;
};

}  // namespace keel::util
