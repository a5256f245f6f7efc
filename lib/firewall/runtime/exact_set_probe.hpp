#pragma once
// The probe of an exact-value set table (SetKind::exact_hash): open addressing over (key, rule)
// pairs with linear probing; empty slots hold a key outside the set and rule kNoRule, so "key is
// v or the empty key" ends a probe with the answer in the slot (docs/decisions/0014).
//
// The loader does not read the slots (a million-rule blocklist has four million of them,
// decision 0064): the probe itself stops after every slot was seen and answers kNoRule for a
// slot whose rule is not one of the rules. Both are one compare on a path that already branches.
#include <cstdint>

#include "keel/firewall/table_view.hpp"
#include "runtime/touches.hpp"

namespace keel::firewall {

struct ExactSetView {
  const uint32_t* slots;  // (key, rule) pairs
  uint32_t mask;          // slot count - 1
  uint32_t empty;         // the key of an empty slot
  uint32_t rules;         // rules in the tables: slot rules at or above are not rules

  ExactSetView(const TableView& tables, const SetTable& set)
      : slots(tables.keys.data() + set.first),
        mask(set.count - 1),
        empty(set.index_first),
        rules(static_cast<uint32_t>(tables.rules.size())) {}

  uint32_t home(uint32_t value) const { return exact_hash(value) & mask; }
  // The rule of `value`, probing from slot `slot` (its home slot).
  uint32_t probe(uint32_t value, uint32_t slot) const {
    for (uint32_t seen = 0; seen <= mask; ++seen, slot = (slot + 1) & mask) {
      KEEL_FW_TOUCH(&slots[2 * slot], 2 * sizeof *slots);
      const uint32_t key = slots[2 * slot];
      if (key == value || key == empty) {
        const uint32_t rule = slots[2 * slot + 1];  // an empty slot's rule is kNoRule
        return rule < rules ? rule : kNoRule;
      }
    }
    return kNoRule;  // no empty slot: a blob the compiler did not write
  }
};

}  // namespace keel::firewall
