// Set tables: the rules of a group painted onto the key field's domain, lowest rule first, then
// stored as a direct array, an exact-value hash of (key, rule) pairs or sorted (start, rule) pairs
// with a top-bits index.
#include <algorithm>
#include <bit>

#include "compile/builder_parts.hpp"

namespace keel::firewall {
namespace {
constexpr size_t kDirectMinSegments = 64;  // below this a binary search over starts is as fast
constexpr size_t kHashMinPoints = 16;
constexpr size_t kHashLoadInverse =
    3;  // slots >= 3 per key: load <= 1/3, so most probes end at the home slot
constexpr size_t kIndexMinSegments = 64;
constexpr int kMinIndexBits = 8;
constexpr int kMaxIndexBits = 22;  // 16 MiB index at most; 2-4 entries per segment below that

// Union-find "next unpainted segment" so each segment is painted once: O(n log n) overall.
uint32_t find_next(std::vector<uint32_t>& next, uint32_t i) {
  uint32_t root = i;
  while (next[root] != root) root = next[root];
  while (next[i] != root) {
    uint32_t up = next[i];
    next[i] = root;
    i = up;
  }
  return root;
}

// Open addressing with linear probing over (key, rule) pairs in keys: a lookup reads one line.
// Empty slots hold a key that is not in the set and rule kNoRule, so "key is v or empty" ends a
// probe with the answer in the slot: one branch, almost always taken at the home slot.
void build_hash_set(Tables& tables, SetTable& set, const std::vector<uint32_t>& starts,
                    const std::vector<uint32_t>& value) {
  size_t points = 0;
  uint32_t empty = 0;  // the smallest value that is not a key (starts are sorted)
  for (size_t i = 0; i < starts.size(); ++i) {
    if (value[i] == kNoRule) continue;
    ++points;
    if (starts[i] == empty) ++empty;
  }
  set.kind = SetKind::exact_hash;
  set.count = std::bit_ceil(static_cast<uint32_t>(points * kHashLoadInverse + 1));
  set.index_first = empty;
  set.first = static_cast<uint32_t>(tables.keys.size());
  tables.keys.resize(set.first + 2 * size_t{set.count});
  uint32_t* slots = tables.keys.data() + set.first;
  for (uint32_t i = 0; i < set.count; ++i) slots[2 * i] = empty, slots[2 * i + 1] = kNoRule;
  for (size_t i = 0; i < starts.size(); ++i) {
    if (value[i] == kNoRule) continue;
    uint32_t slot = exact_hash(starts[i]) & (set.count - 1);
    while (slots[2 * slot] != empty) slot = (slot + 1) & (set.count - 1);
    slots[2 * slot] = starts[i];
    slots[2 * slot + 1] = value[i];
  }
}
}  // namespace

const FieldSet* find_field(const IrCube& cube, Field f) {
  for (const FieldSet& fs : cube.fields)
    if (fs.field == f) return &fs;
  return nullptr;
}

uint32_t emit_checks(Tables& tables, const IrCube& cube, uint32_t skip_mask, uint32_t& count) {
  uint32_t first = static_cast<uint32_t>(tables.checks.size());
  count = 0;
  for (const FieldSet& fs : cube.fields) {
    if (skip_mask & field_bit(fs.field)) continue;
    FieldCheck check;
    check.field = static_cast<uint8_t>(fs.field);
    check.first = static_cast<uint32_t>(tables.intervals.size());
    check.count = static_cast<uint16_t>(fs.set.size());
    tables.intervals.insert(tables.intervals.end(), fs.set.begin(), fs.set.end());
    tables.checks.push_back(check);
    ++count;
  }
  return first;
}

uint32_t build_set_table(Tables& tables, const SetGroup& group, uint32_t skip_mask) {
  const uint32_t max = field_max(group.key);
  // Elementary segments between all interval boundaries.
  std::vector<uint32_t> starts{0};
  bool all_points = true;
  for (const PartCube& m : group.members) {
    for (const Interval& iv : find_field(*m.cube, group.key)->set) {
      starts.push_back(iv.lo);
      if (iv.hi < max) starts.push_back(iv.hi + 1);
      all_points &= iv.lo == iv.hi;
    }
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<uint32_t> value(starts.size(), kNoRule);
  std::vector<uint32_t> next(starts.size() + 1);
  for (uint32_t i = 0; i < next.size(); ++i) next[i] = i;
  auto segment_of = [&](uint32_t v) {
    return static_cast<uint32_t>(std::upper_bound(starts.begin(), starts.end(), v) -
                                 starts.begin() - 1);
  };
  // Members arrive in rule order, so the first painter of a segment is its first match.
  for (const PartCube& m : group.members) {
    for (const Interval& iv : find_field(*m.cube, group.key)->set) {
      uint32_t end = iv.hi == max ? static_cast<uint32_t>(starts.size()) : segment_of(iv.hi + 1);
      for (uint32_t i = find_next(next, segment_of(iv.lo)); i < end; i = find_next(next, i + 1)) {
        value[i] = m.rule;
        next[i] = i + 1;
      }
    }
  }
  // Merge neighbours with equal values.
  size_t out = 0;
  for (size_t i = 1; i < starts.size(); ++i) {
    if (value[i] != value[out]) {
      ++out;
      starts[out] = starts[i];
      value[out] = value[i];
    }
  }
  starts.resize(out + 1);
  value.resize(out + 1);

  SetTable set;
  set.field = static_cast<uint8_t>(group.key);
  uint32_t residual_count = 0;
  set.first_check =
      emit_checks(tables, *group.residual_source, skip_mask | field_bit(group.key), residual_count);
  set.check_count = residual_count;
  const int bits = field_bits(group.key);
  if (bits <= 16 && starts.size() >= kDirectMinSegments) {
    set.kind = SetKind::direct;
    set.count = max + 1;
    set.first = static_cast<uint32_t>(tables.values.size());
    tables.values.resize(set.first + size_t{set.count});
    for (size_t i = 0; i < starts.size(); ++i) {
      uint32_t end = i + 1 < starts.size() ? starts[i + 1] : max + 1;
      std::fill(tables.values.begin() + set.first + starts[i],
                tables.values.begin() + set.first + end, value[i]);
    }
  } else if (all_points && starts.size() / 2 >= kHashMinPoints) {
    build_hash_set(tables, set, starts, value);
  } else {
    // (start, rule) pairs side by side in keys, then an index on the top bits whose entries give
    // either the rule of a bucket no segment boundary crosses (one read) or the bucket's first
    // segment.
    set.kind = SetKind::intervals;
    set.count = static_cast<uint32_t>(starts.size());
    set.first = static_cast<uint32_t>(tables.keys.size());
    for (size_t i = 0; i < starts.size(); ++i) {
      tables.keys.push_back(starts[i]);
      tables.keys.push_back(value[i]);
    }
    if (starts.size() >= kIndexMinSegments) {
      int index_bits = std::clamp(static_cast<int>(std::bit_width(starts.size())) + 1,
                                  kMinIndexBits, std::min(kMaxIndexBits, bits));
      set.index_bits = static_cast<uint8_t>(index_bits);
      set.index_first = static_cast<uint32_t>(tables.keys.size());
      const int shift = bits - index_bits;
      size_t segment = 0;
      for (uint64_t b = 0; b < (uint64_t{1} << index_bits); ++b) {
        const uint64_t point = b << shift, last = point + (uint64_t{1} << shift) - 1;
        while (segment + 1 < starts.size() && starts[segment + 1] <= point) ++segment;
        const bool leaf = segment + 1 == starts.size() || starts[segment + 1] > last;
        tables.keys.push_back(leaf ? set_index_leaf(value[segment])
                                   : static_cast<uint32_t>(segment));
      }
    }
  }
  tables.sets.push_back(set);
  return static_cast<uint32_t>(tables.sets.size() - 1);
}

}  // namespace keel::firewall
