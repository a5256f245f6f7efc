#pragma once
// The probe of an exact-value set table (SetKind::exact_hash): open addressing over (key, rule)
// pairs with linear probing; empty slots hold a key outside the set and rule kNoRule, so "key is
// v or the empty key" ends a probe with the answer in the slot (docs/decisions/0014).
#include <cstdint>

#include "keel/firewall/tables.hpp"

namespace keel::firewall {

struct ExactSetView {
  const uint32_t* slots;  // (key, rule) pairs
  uint32_t mask;          // slot count - 1
  uint32_t empty;         // the key of an empty slot

  ExactSetView(const Tables& tables, const SetTable& set)
      : slots(tables.keys.data() + set.first), mask(set.count - 1), empty(set.index_first) {}

  uint32_t home(uint32_t value) const { return exact_hash(value) & mask; }
  // The rule of `value`, probing from slot `slot` (its home slot): the loader checked that an
  // empty slot exists, so the probe ends.
  uint32_t probe(uint32_t value, uint32_t slot) const {
    for (;; slot = (slot + 1) & mask) {
      const uint32_t key = slots[2 * slot];
      if (key == value || key == empty)
        return slots[2 * slot + 1];  // an empty slot's rule is kNoRule
    }
  }
};

}  // namespace keel::firewall
