// Validation of mapped tables: after this, no lookup can index outside a pool or loop forever.
// What lookups follow without a check is checked here, entry by entry where need be (tree
// lines, tuple buckets, interval sets); the two kinds of entries a large blocklist is made of,
// exact-set slots and rules, are checked by the lookup that reads them (one compare each), so
// loading a million-rule blob reads its structure, not its 50 MiB (docs/decisions/0064).
#include <algorithm>
#include <vector>

#include "keel/firewall/classifier.hpp"

namespace keel::firewall {
namespace {
constexpr int kMaxBucketBits = 31;
constexpr int kMaxSetIndexBits = 24;

bool range_ok(uint64_t first, uint64_t count, size_t size) {
  return first <= size && count <= size - first;
}
bool rule_ok(uint32_t rule, const TableView& t) { return rule == kNoRule || rule < t.rules.size(); }

LoadStatus validate_set(const SetTable& s, const TableView& t) {
  if (s.field >= kFieldCount) return LoadStatus::bad_enum;
  const Field field = static_cast<Field>(s.field);
  const int bits = field_bits(field);
  if (!range_ok(s.first_check, s.check_count, t.checks.size())) return LoadStatus::bad_index;
  switch (s.kind) {
    case SetKind::direct:
      if (bits > 16 || s.count != field_max(field) + 1) return LoadStatus::bad_size;
      if (!range_ok(s.first, s.count, t.values.size())) return LoadStatus::bad_index;
      for (uint32_t i = 0; i < s.count; ++i)
        if (!rule_ok(t.values[s.first + i], t)) return LoadStatus::bad_index;
      return LoadStatus::ok;
    case SetKind::exact_hash:
      // Slots are read by ExactSetView::probe, which stops after `count` slots and answers
      // kNoRule for a slot's rule outside the rules: neither needs reading the slots here.
      if (s.count == 0 || (s.count & (s.count - 1)) != 0) return LoadStatus::bad_size;
      if (!range_ok(s.first, uint64_t{s.count} * 2, t.keys.size())) return LoadStatus::bad_index;
      return LoadStatus::ok;
    case SetKind::intervals: {
      if (s.count == 0 || !range_ok(s.first, uint64_t{s.count} * 2, t.keys.size()))
        return LoadStatus::bad_index;
      const uint32_t* pairs = t.keys.data() + s.first;
      for (uint32_t i = 0; i < s.count; ++i)
        if (!rule_ok(pairs[2 * i + 1], t)) return LoadStatus::bad_index;
      if (pairs[0] != 0) return LoadStatus::bad_order;
      for (uint32_t i = 1; i < s.count; ++i)
        if (pairs[2 * i] <= pairs[2 * i - 2]) return LoadStatus::bad_order;
      if (pairs[2 * (s.count - 1)] > field_max(field)) return LoadStatus::bad_order;
      if (s.index_bits == 0) return LoadStatus::ok;
      if (s.index_bits > bits || s.index_bits > kMaxSetIndexBits) return LoadStatus::bad_size;
      if (s.count >= kSetIndexLeaf || t.rules.size() >= kSetIndexLeaf)
        return LoadStatus::bad_size;  // top bit tags leaves
      const uint64_t entries = uint64_t{1} << s.index_bits;
      if (!range_ok(s.index_first, entries, t.keys.size())) return LoadStatus::bad_index;
      // Each entry must be exactly what the builder writes: the rule of a bucket inside one
      // segment, else the segment holding the bucket's first value.
      const int shift = bits - s.index_bits;
      uint32_t seg = 0;
      for (uint64_t b = 0; b < entries; ++b) {
        const uint64_t point = b << shift, last = point + (uint64_t{1} << shift) - 1;
        while (seg + 1 < s.count && pairs[2 * (seg + 1)] <= point) ++seg;
        const bool leaf = seg + 1 == s.count || pairs[2 * (seg + 1)] > last;
        const uint32_t entry = t.keys[s.index_first + b];
        if (entry != (leaf ? set_index_leaf(pairs[2 * seg + 1]) : seg))
          return LoadStatus::bad_order;
      }
      return LoadStatus::ok;
    }
  }
  return LoadStatus::bad_enum;
}

LoadStatus validate_entry(const TupleEntry& e, const TableView& t) {
  if (e.rule >= t.rules.size()) return LoadStatus::bad_index;
  if (e.saddr_length > 32 || e.daddr_length > 32) return LoadStatus::bad_size;
  if ((e.saddr & ~prefix_mask(e.saddr_length)) != 0 ||
      (e.daddr & ~prefix_mask(e.daddr_length)) != 0) {
    return LoadStatus::bad_order;
  }
  if (e.sport_lo > e.sport_hi || e.dport_lo > e.dport_hi || e.proto_lo > e.proto_hi)
    return LoadStatus::bad_order;
  return LoadStatus::ok;
}

LoadStatus validate_tuple(const TupleTable& tt, const TableView& t) {
  for (int i = 0; i < kTupleFields; ++i)
    if (tt.lengths[i] > field_bits(kTupleFieldList[i])) return LoadStatus::bad_size;
  if (tt.bucket_bits > kMaxBucketBits) return LoadStatus::bad_size;
  const uint64_t offsets = (uint64_t{1} << tt.bucket_bits) + 1;
  if (!range_ok(tt.offsets_first, offsets, t.keys.size())) return LoadStatus::bad_index;
  if (tt.pad != 0) return LoadStatus::bad_size;
  if (t.keys[tt.offsets_first] != 0 || t.keys[tt.offsets_first + offsets - 1] != tt.entries_count) {
    return LoadStatus::bad_size;
  }
  for (uint64_t b = 1; b < offsets; ++b)
    if (t.keys[tt.offsets_first + b] < t.keys[tt.offsets_first + b - 1])
      return LoadStatus::bad_order;
  switch (tt.format) {
    case TupleFormat::cubes:
      if (!range_ok(tt.entries_first, tt.entries_count, t.values.size()))
        return LoadStatus::bad_index;
      for (uint32_t i = 0; i < tt.entries_count; ++i)
        if (t.values[tt.entries_first + i] >= t.cubes.size()) return LoadStatus::bad_index;
      return LoadStatus::ok;
    case TupleFormat::packed: {
      if (!range_ok(tt.entries_first, tt.entries_count, t.tuple_entries.size()))
        return LoadStatus::bad_index;
      const TupleEntry* entries = t.tuple_entries.data() + tt.entries_first;
      for (uint32_t i = 0; i < tt.entries_count; ++i)
        if (LoadStatus st = validate_entry(entries[i], t); st != LoadStatus::ok) return st;
      // The lookup stops at the first entry not better than the match so far: rule order per
      // bucket.
      for (uint64_t b = 0; b + 1 < offsets; ++b) {
        for (uint32_t e = t.keys[tt.offsets_first + b] + 1; e < t.keys[tt.offsets_first + b + 1];
             ++e)
          if (entries[e].rule < entries[e - 1].rule) return LoadStatus::bad_order;
      }
      return LoadStatus::ok;
    }
  }
  return LoadStatus::bad_enum;
}

// Octet lanes name rules in order (kNoRule, the largest, only at the end): a leaf's first
// matching lane is its best.
LoadStatus validate_octet(const LeafOctet& octet, const TableView& t) {
  for (int lane = 0; lane < 8; ++lane) {
    if (!rule_ok(octet.rule[lane], t)) return LoadStatus::bad_index;
    if (lane > 0 && octet.rule[lane] < octet.rule[lane - 1]) return LoadStatus::bad_order;
  }
  return LoadStatus::ok;
}

// A leaf reference names octets of its tree whose lanes stay in rule order across the leaf.
LoadStatus validate_leaf(uint32_t ref, const TreeTable& tree, const TableView& t) {
  const uint32_t first = leaf_first(ref), count = leaf_count(ref);
  if (!range_ok(first, count, tree.octets_count)) return LoadStatus::bad_index;
  const LeafOctet* octets = t.leaf_octets.data() + tree.octets_first + first;
  for (uint32_t o = 1; o < count; ++o)
    if (octets[o].rule[0] < octets[o - 1].rule[7]) return LoadStatus::bad_order;
  return LoadStatus::ok;
}

// Every walk ends within kMaxTreeLines lines: a line's exits lead to later lines of its tree
// (so no cycle), and a line's depth (one for the root references' lines) stays in bounds.
// Splits name tuple fields; every reference is a line of the tree or a valid leaf.
LoadStatus validate_tree(const TreeTable& tree, const TableView& t) {
  if (tree.root_field >= kTupleFields || tree.pad[0] != 0 || tree.pad[1] != 0)
    return LoadStatus::bad_enum;
  if (tree.root_bits > kMaxTreeRootBits ||
      tree.root_bits > field_bits(kTupleFieldList[tree.root_field])) {
    return LoadStatus::bad_size;
  }
  if (!range_ok(tree.roots_first, uint64_t{1} << tree.root_bits, t.tree_roots.size()) ||
      !range_ok(tree.lines_first, tree.lines_count, t.tree_lines.size()) ||
      !range_ok(tree.octets_first, tree.octets_count, t.leaf_octets.size())) {
    return LoadStatus::bad_index;
  }
  const LeafOctet* octets = t.leaf_octets.data() + tree.octets_first;
  for (uint32_t i = 0; i < tree.octets_count; ++i)
    if (LoadStatus st = validate_octet(octets[i], t); st != LoadStatus::ok) return st;
  std::vector<uint8_t> depth(tree.lines_count, 0);
  const auto reference = [&](uint32_t ref, uint32_t after, uint8_t at_depth) {
    if (ref & kTreeLeafRef) return validate_leaf(ref, tree, t);
    if (ref < after || ref >= tree.lines_count) return LoadStatus::bad_index;
    if (at_depth > kMaxTreeLines) return LoadStatus::bad_size;
    depth[ref] = std::max(depth[ref], at_depth);
    return LoadStatus::ok;
  };
  for (uint32_t s = 0; s < (1u << tree.root_bits); ++s)
    if (LoadStatus st = reference(t.tree_roots[tree.roots_first + s], 0, 1); st != LoadStatus::ok)
      return st;
  const TreeLine* lines = t.tree_lines.data() + tree.lines_first;
  for (uint32_t n = 0; n < tree.lines_count; ++n) {
    if (lines[n].fields >> (3 * kLineSplits) != 0) return LoadStatus::bad_enum;
    for (int i = 0; i < kLineSplits; ++i)
      if (line_field(lines[n], i) >= kTupleFields) return LoadStatus::bad_enum;
    // Lines no reference reaches (depth 0) are never walked; their exits are checked anyway.
    for (uint32_t exit : lines[n].exit)
      if (LoadStatus st = reference(exit, n + 1, static_cast<uint8_t>(depth[n] + 1));
          st != LoadStatus::ok)
        return st;
  }
  return LoadStatus::ok;
}

LoadStatus validate_chain(const ChainTable& c, const TableView& t) {
  if (c.present > 1) return LoadStatus::bad_enum;
  if (!c.present) return LoadStatus::ok;
  if (static_cast<int>(c.policy) >= kActionCount) return LoadStatus::bad_enum;
  if (c.dispatch_count > kMaxDispatchFields) return LoadStatus::bad_size;
  if (!range_ok(c.class_maps_first, uint64_t{c.dispatch_count} * kClassMapSize,
                t.class_maps.size())) {
    return LoadStatus::bad_index;
  }
  uint64_t partitions = 1;
  for (int d = 0; d < c.dispatch_count; ++d) {
    // The one-byte fields the lookup reads at their offset (classifier.cpp, partition_of).
    if (c.dispatch_field[d] > static_cast<uint8_t>(Field::ct_state) &&
        c.dispatch_field[d] != static_cast<uint8_t>(Field::family))
      return LoadStatus::bad_enum;
    if (c.class_count[d] == 0 || c.class_count[d] > kClassMapSize) return LoadStatus::bad_size;
    for (uint32_t v = 0; v < kClassMapSize; ++v)
      if (t.class_maps[c.class_maps_first + d * kClassMapSize + v] >= c.class_count[d])
        return LoadStatus::bad_index;
    partitions *= c.class_count[d];
  }
  if (partitions != c.partition_count) return LoadStatus::bad_size;
  if (!range_ok(c.first_partition, c.partition_count, t.partitions.size()))
    return LoadStatus::bad_index;
  return LoadStatus::ok;
}

// strings[0] is "", and every string lies inside the bytes.
LoadStatus validate_strings(const StringTable& strings) {
  const std::span<const uint32_t> offsets = strings.offsets();
  if (offsets.size() < 2 || offsets[0] != 0 || offsets[1] != 0) return LoadStatus::bad_size;
  for (size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1]) return LoadStatus::bad_order;
  if (offsets.back() > strings.bytes().size()) return LoadStatus::bad_index;
  return LoadStatus::ok;
}
}  // namespace

// Rules (their actions and log prefixes) are checked where they are read: Classifier::classify
// and the appliance (rule_log.cpp).
LoadStatus validate(const TableView& t) {
  if (LoadStatus st = validate_strings(t.strings); st != LoadStatus::ok) return st;
  for (const InterfaceInfo& i : t.interfaces)
    if (i.name >= t.strings.size()) return LoadStatus::bad_index;
  for (const RouteInfo& r : t.routes) {
    if (r.length > 32) return LoadStatus::bad_size;
    if (r.interface != kUnknownInterface && r.interface >= t.interfaces.size())
      return LoadStatus::bad_index;
  }
  for (const Interval& iv : t.intervals)
    if (iv.lo > iv.hi) return LoadStatus::bad_order;
  for (const FieldCheck& c : t.checks) {
    if (c.field >= kFieldCount) return LoadStatus::bad_enum;
    if (!range_ok(c.first, c.count, t.intervals.size())) return LoadStatus::bad_index;
  }
  for (const Cube& c : t.cubes) {
    if (c.rule >= t.rules.size()) return LoadStatus::bad_index;
    if (!range_ok(c.first_check, c.check_count, t.checks.size())) return LoadStatus::bad_index;
  }
  for (const SetTable& s : t.sets)
    if (LoadStatus st = validate_set(s, t); st != LoadStatus::ok) return st;
  for (const TupleTable& tt : t.tuples)
    if (LoadStatus st = validate_tuple(tt, t); st != LoadStatus::ok) return st;
  for (const TreeTable& tree : t.trees)
    if (LoadStatus st = validate_tree(tree, t); st != LoadStatus::ok) return st;
  for (const Probe& p : t.probes) {
    if (p.kind == ProbeKind::set     ? p.index >= t.sets.size()
        : p.kind == ProbeKind::tuple ? p.index >= t.tuples.size()
        : p.kind == ProbeKind::tree  ? p.index >= t.trees.size()
                                     : true) {
      return LoadStatus::bad_index;
    }
  }
  for (const Partition& p : t.partitions)
    if (!range_ok(p.first_probe, p.probe_count, t.probes.size())) return LoadStatus::bad_index;
  for (const ChainTable& c : t.chains)
    if (LoadStatus st = validate_chain(c, t); st != LoadStatus::ok) return st;
  return LoadStatus::ok;
}

}  // namespace keel::firewall
