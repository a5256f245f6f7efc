// Slots reused through a free list, as the socket and connection tables
// keep them: a handle names a slot and its generation (decision 0040).
#pragma once
#include <cstdint>
#include <vector>

namespace keel::util {

// The index of a slot to fill: the last one freed, else a new one at the end.
template <typename Slot>
uint32_t take_slot(std::vector<Slot>& slots, std::vector<uint32_t>& free) {
  if (!free.empty()) {
    uint32_t index = free.back();
    free.pop_back();
    return index;
  }
  slots.emplace_back();
  return uint32_t(slots.size() - 1);
}

}  // namespace keel::util
