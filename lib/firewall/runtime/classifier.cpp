// Lookup: dispatch to a partition, then probe its set and tuple tables and trees in order of their
// best rule, stopping as soon as no remaining probe can beat the match already found.
#include "keel/firewall/classifier.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

#include "runtime/entry_match.hpp"
#include "runtime/exact_set_probe.hpp"
#include "runtime/leaf_match.hpp"
#include "runtime/touches.hpp"
#include "runtime/tree_lookup_avx2.hpp"

namespace keel::firewall {

LoadStatus Classifier::load(std::span<const uint8_t> blob) {
  // The one copy: into page-aligned storage, as the blob's pools need (not zeroed first).
  std::unique_ptr<BlobPage[]> copy(
      new BlobPage[(blob.size() + sizeof(BlobPage) - 1) / sizeof(BlobPage)]);
  if (!blob.empty()) std::memcpy(copy.get(), blob.data(), blob.size());
  const std::span<const uint8_t> placed(reinterpret_cast<const uint8_t*>(copy.get()), blob.size());
  return take(placed, std::move(copy));
}

LoadStatus Classifier::map(std::span<const uint8_t> blob) { return take(blob, {}); }

LoadStatus Classifier::adopt(const Tables& tables) { return load(encode_tables(tables)); }

LoadStatus Classifier::take(std::span<const uint8_t> mapped, std::unique_ptr<BlobPage[]> owner) {
  TableView view;
  LoadStatus status = map_tables(mapped, view);
  if (status == LoadStatus::ok) status = validate(view);
  if (status != LoadStatus::ok) return status;
  tables_ = view;
  owned_ = std::move(owner);
  // How many tree probes, from each, are walked together: consecutive trees of a partition, at
  // most kMaxLockstepTrees (the least over partitions that share the probe).
  tree_runs_.assign(tables_.probes.size(), kMaxLockstepTrees);
  for (const Partition& partition : tables_.partitions) {
    uint32_t run = 0;
    for (uint32_t p = partition.first_probe + partition.probe_count; p-- > partition.first_probe;) {
      run = tables_.probes[p].kind == ProbeKind::tree ? std::min(run + 1, kMaxLockstepTrees) : 0;
      tree_runs_[p] = std::min<uint8_t>(tree_runs_[p], static_cast<uint8_t>(run));
    }
  }
  return status;
}

bool Classifier::checks_pass(uint32_t first, uint32_t count, const Packet& packet) const {
  for (uint32_t c = first; c < first + count; ++c) {
    const FieldCheck& check = tables_.checks[c];
    KEEL_FW_TOUCH(&check, sizeof check);
    const uint32_t v = field_value(packet, static_cast<Field>(check.field));
    const Interval* iv = &tables_.intervals[check.first];
    // Most checks hold one or two intervals; binary search only for long lists.
    uint32_t lo = 0, hi = check.count;
    while (hi - lo > 4) {
      uint32_t mid = (lo + hi) / 2;
      KEEL_FW_TOUCH(&iv[mid], sizeof iv[mid]);
      if (iv[mid].lo <= v)
        lo = mid;
      else
        hi = mid;
    }
    bool hit = false;
    for (uint32_t i = lo; i < hi && (KEEL_FW_TOUCH(&iv[i], sizeof iv[i]), iv[i].lo <= v); ++i)
      hit |= v <= iv[i].hi;
    if (!hit) return false;
  }
  return true;
}

uint32_t Classifier::lookup_set(const SetTable& set, const Packet& packet) const {
  if (!checks_pass(set.first_check, set.check_count, packet)) return kNoRule;
  const uint32_t v = field_value(packet, static_cast<Field>(set.field));
  switch (set.kind) {
    case SetKind::direct:
      KEEL_FW_TOUCH(&tables_.values[set.first + v], sizeof(uint32_t));
      return tables_.values[set.first + v];
    case SetKind::exact_hash: {
      const ExactSetView hash(tables_, set);
      return hash.probe(v, hash.home(v));
    }
    case SetKind::intervals: {
      const uint32_t* pairs = tables_.keys.data() + set.first;  // (start, rule) pairs
      uint32_t lo = 0, hi = set.count;  // find the last start <= v in [lo, hi)
      if (set.index_bits) {
        const uint32_t* index =
            &tables_.keys[set.index_first +
                          (v >> (field_bits(static_cast<Field>(set.field)) - set.index_bits))];
        KEEL_FW_TOUCH(index, sizeof *index);
        const uint32_t entry = *index;
        if (entry & kSetIndexLeaf) return set_index_rule(entry);
        // Gallop from the bucket's first segment: most buckets hold a boundary or two.
        lo = entry;
        for (uint32_t step = 1;; step *= 2) {
          if (step >= set.count - lo ||
              (KEEL_FW_TOUCH(&pairs[2 * (lo + step)], sizeof *pairs), pairs[2 * (lo + step)] > v)) {
            hi = step >= set.count - lo ? set.count : lo + step;
            break;
          }
          lo += step;
        }
      }
      while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        KEEL_FW_TOUCH(&pairs[2 * mid], sizeof *pairs);
        if (pairs[2 * mid] <= v)
          lo = mid;
        else
          hi = mid;
      }
      KEEL_FW_TOUCH(&pairs[2 * lo + 1], sizeof *pairs);
      return pairs[2 * lo + 1];
    }
  }
  return kNoRule;
}

uint32_t Classifier::lookup_tuple(const TupleTable& table, const Packet& packet,
                                  uint32_t best) const {
  const uint64_t h = tuple_hash(tuple_key(packet, table.lengths));
  const uint32_t bucket =
      table.bucket_bits == 0 ? 0 : static_cast<uint32_t>(h >> (64 - table.bucket_bits));
  const uint32_t* offsets = tables_.keys.data() + table.offsets_first;
  KEEL_FW_TOUCH(&offsets[bucket], 2 * sizeof *offsets);
  if (table.format == TupleFormat::packed) {
    const TupleEntry* entries = tables_.tuple_entries.data() + table.entries_first;
    for (uint32_t e = offsets[bucket]; e < offsets[bucket + 1]; ++e) {
      const TupleEntry& entry = entries[e];
      KEEL_FW_TOUCH(&entry, sizeof entry);
      if (entry.rule >= best) break;  // bucket is in rule order
      if (entry_matches(entry, packet)) return entry.rule;
    }
    return kNoRule;
  }
  const uint32_t* entries = tables_.values.data() + table.entries_first;
  for (uint32_t e = offsets[bucket]; e < offsets[bucket + 1]; ++e) {
    KEEL_FW_TOUCH(&entries[e], sizeof entries[e]);
    const Cube& cube = tables_.cubes[entries[e]];
    KEEL_FW_TOUCH(&cube, sizeof cube);
    if (cube.rule >= best) break;  // bucket is in rule order
    if (checks_pass(cube.first_check, cube.check_count, packet)) return cube.rule;
  }
  return kNoRule;
}

// The SSE2 walk (CPUs without AVX2; tree_lookup_avx2.cpp is the AVX2 one).
template <uint32_t kCount>
uint32_t Classifier::walk_trees(const Probe* probes, const Packet& packet, uint32_t best) const {
  const uint32_t key[kTupleFields] = {packet.saddr, packet.daddr, packet.sport, packet.dport,
                                      packet.proto};
  const TreeLine* lines[kCount];
  const LeafOctet* octets[kCount];
  uint32_t ref[kCount];
  for (uint32_t t = 0; t < kCount; ++t) {
    const TreeTable& tree = tables_.trees[probes[t].index];
    KEEL_FW_TOUCH(&tree, sizeof tree);
    lines[t] = tables_.tree_lines.data() + tree.lines_first;
    octets[t] = tables_.leaf_octets.data() + tree.octets_first;
    const uint32_t slot = leading_bits(
        key[tree.root_field], field_bits(kTupleFieldList[tree.root_field]), tree.root_bits);
    ref[t] = tables_.tree_roots[tree.roots_first + slot];
    KEEL_FW_TOUCH(&tables_.tree_roots[tree.roots_first + slot], sizeof(uint32_t));
  }
  // Each walk reads one line per three levels until it reaches a leaf; the loader checked that
  // exits lead to later lines, so each walk ends. The root cut and the lines leave walks of 0-2
  // lines, short loops the branch predictor follows well enough that the next walk starts
  // early: written branch-free (every walk stepping until the deepest ends), lookups were
  // slower (docs/decisions/0016-firewall-tree-lines.md).
  for (uint32_t t = 0; t < kCount; ++t) {
    while ((ref[t] & kTreeLeafRef) == 0) {
      const TreeLine& line = lines[t][ref[t]];
      KEEL_FW_TOUCH(&line, sizeof line);
      uint32_t at = 0;
      for (int level = 0; level < kLineLevels; ++level)
        at = 2 * at + 1 + (key[line_field(line, at)] >= line.value[at]);
      ref[t] = line.exit[at - kLineSplits];
    }
  }
  // Every reached leaf is tested in full, half an octet at a time, without branches on the
  // data; the leaves' reads are independent and overlap.
  const PacketLanes lanes(packet);
  for (uint32_t t = 0; t < kCount; ++t) {
    KEEL_FW_TOUCH(octets[t] + leaf_first(ref[t]), leaf_count(ref[t]) * sizeof(LeafOctet));
    best = std::min(best, leaf_match(octets[t] + leaf_first(ref[t]), leaf_count(ref[t]), lanes));
  }
  return best;
}

uint32_t Classifier::lookup_trees(const Probe* probes, uint32_t count, const Packet& packet,
                                  uint32_t best) const {
  static_assert(kMaxLockstepTrees == 8);
  if (avx2_) return lookup_trees_avx2(tables_, probes, count, packet, best);
  switch (count) {
    case 1:
      return walk_trees<1>(probes, packet, best);
    case 2:
      return walk_trees<2>(probes, packet, best);
    case 3:
      return walk_trees<3>(probes, packet, best);
    case 4:
      return walk_trees<4>(probes, packet, best);
    case 5:
      return walk_trees<5>(probes, packet, best);
    case 6:
      return walk_trees<6>(probes, packet, best);
    case 7:
      return walk_trees<7>(probes, packet, best);
    default:
      return walk_trees<8>(probes, packet, best);
  }
}

const Partition& Classifier::partition_of(const ChainTable& chain, const Packet& packet) const {
  uint32_t part = 0;
  const uint8_t* maps = tables_.class_maps.data() + chain.class_maps_first;
  // Dispatch fields are the packet's one-byte fields: read at their offset, not through
  // field_value's switch (an indirect jump per field).
  static constexpr auto kOffset = [] {
    std::array<size_t, kFieldCount> offset{};
    offset[static_cast<int>(Field::iif)] = offsetof(Packet, iif);
    offset[static_cast<int>(Field::oif)] = offsetof(Packet, oif);
    offset[static_cast<int>(Field::proto)] = offsetof(Packet, proto);
    offset[static_cast<int>(Field::ct_state)] = offsetof(Packet, ct_state);
    offset[static_cast<int>(Field::family)] = offsetof(Packet, family);
    return offset;
  }();
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&packet);
  for (int d = 0; d < chain.dispatch_count; ++d) {
    const uint32_t v = bytes[kOffset[chain.dispatch_field[d]]];
    KEEL_FW_TOUCH(&maps[d * kClassMapSize + v], 1);
    part = part * chain.class_count[d] + maps[d * kClassMapSize + v];
  }
  KEEL_FW_TOUCH(&tables_.partitions[chain.first_partition + part], sizeof(Partition));
  return tables_.partitions[chain.first_partition + part];
}

uint32_t Classifier::match_partition(const Partition& partition, const Packet& packet) const {
  uint32_t best = kNoRule;
  const uint32_t end = partition.first_probe + partition.probe_count;
  for (uint32_t p = partition.first_probe; p < end; ++p) {
    const Probe& probe = tables_.probes[p];
    KEEL_FW_TOUCH(&probe, sizeof probe);
    if (probe.best_rule >= best) break;
    if (probe.kind == ProbeKind::tree) {
      // Consecutive trees (a partition's tree groups) are walked together.
      const uint32_t count = tree_runs_[p];
      best = lookup_trees(&probe, count, packet, best);
      p += count - 1;
      continue;
    }
    KEEL_FW_TOUCH(probe.kind == ProbeKind::set
                      ? static_cast<const void*>(&tables_.sets[probe.index])
                      : static_cast<const void*>(&tables_.tuples[probe.index]),
                  probe.kind == ProbeKind::set ? sizeof(SetTable) : sizeof(TupleTable));
    uint32_t r = probe.kind == ProbeKind::set
                     ? lookup_set(tables_.sets[probe.index], packet)
                     : lookup_tuple(tables_.tuples[probe.index], packet, best);
    if (r < best) best = r;
  }
  return best;
}

uint32_t Classifier::first_match(ChainKind kind, Hook hook, const Packet& packet) const {
  const ChainTable& chain = tables_.chains[chain_slot(kind, hook)];
  if (!chain.present) return kNoRule;
  return match_partition(partition_of(chain, packet), packet);
}

Verdict Classifier::classify(ChainKind kind, Hook hook, const Packet& packet) const {
  const ChainTable& chain = tables_.chains[chain_slot(kind, hook)];
  uint32_t rule = first_match(kind, hook, packet);
  if (rule == kNoRule) return {chain.present ? chain.policy : Action::accept, kNoRule};
  KEEL_FW_TOUCH(&tables_.rules[rule], sizeof(RuleInfo));
  return {rule_action(tables_.rules[rule]), rule};
}

}  // namespace keel::firewall
