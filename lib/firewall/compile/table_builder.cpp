// Builds the classifier tables of each chain: dispatch on small-domain fields into partitions,
// then per partition group runs of rules differing in one field into set tables and put the
// rest into tuple tables; probes are ordered by their best rule for early exit.
#include <algorithm>
#include <unordered_map>

#include "compile/builder_parts.hpp"
#include "compile/interval_set.hpp"
#include "keel/firewall/compiler.hpp"

namespace keel::firewall {
namespace {
// The family first: IPv4 and IPv6 rules never share a partition, and an IPv4 partition holds the
// cubes it held before IPv6 (its family check decided by the dispatch), packed as before.
constexpr Field kDispatchCandidates[] = {Field::family, Field::proto, Field::ct_state, Field::iif,
                                         Field::oif};
constexpr size_t kMaxPartitions = 4096;
constexpr size_t kCopySlack = 1024;  // allowed extra cube copies beyond 2x from dispatch
constexpr size_t kMinGroupSize =
    64;  // smaller runs cost more as separate probes than inside tuples
// A run must also hold this share of its partition: each set table is one more probe, and many
// small runs (a 5-tuple mix) cost more as probes than inside the few merged tuple tables.
constexpr size_t kMinGroupShareDivisor = 32;

struct DispatchField {
  Field field;
  std::array<uint8_t, kClassMapSize> class_of{};
  uint16_t classes = 0;
};

// Classes = maximal value runs no cube boundary splits; each class is wholly in or out of a set.
DispatchField classes_for(Field f, const std::vector<PartCube>& cubes) {
  std::array<bool, kClassMapSize + 1> boundary{};
  boundary[0] = true;
  for (const PartCube& pc : cubes) {
    if (const FieldSet* fs = find_field(*pc.cube, f)) {
      for (const Interval& iv : fs->set) {
        boundary[std::min<uint32_t>(iv.lo, kClassMapSize)] = true;
        boundary[std::min<uint32_t>(iv.hi + 1, kClassMapSize)] = true;
      }
    }
  }
  DispatchField d{f, {}, 0};
  for (uint32_t v = 0; v < kClassMapSize; ++v) {
    if (boundary[v] && v > 0) ++d.classes;
    d.class_of[v] = static_cast<uint8_t>(d.classes);
  }
  ++d.classes;
  return d;
}

// Classes of `d` a cube accepts.
std::vector<uint8_t> classes_of_cube(const DispatchField& d, const IrCube& cube) {
  std::vector<uint8_t> out;
  const FieldSet* fs = find_field(cube, d.field);
  for (uint32_t v = 0, last = 0xFFFF; v < kClassMapSize; ++v) {
    if (d.class_of[v] == last) continue;
    last = d.class_of[v];
    if (!fs || contains(fs->set, v)) out.push_back(static_cast<uint8_t>(last));
  }
  return out;
}

uint64_t hash_fields(const IrCube& cube, Field skip, uint32_t skip_mask) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t x) { h = (h ^ x) * 0x100000001b3ull; };
  for (const FieldSet& fs : cube.fields) {
    if (fs.field == skip || (skip_mask & field_bit(fs.field))) continue;
    mix(static_cast<uint64_t>(fs.field) + 1000);
    for (const Interval& iv : fs.set) mix(uint64_t{iv.lo} << 32 | iv.hi);
  }
  return h;
}

bool same_residual(const IrCube& a, const IrCube& b, Field key, uint32_t skip_mask) {
  auto next = [&](const IrCube& c, size_t i) {
    while (i < c.fields.size() &&
           (c.fields[i].field == key || (skip_mask & field_bit(c.fields[i].field))))
      ++i;
    return i;
  };
  size_t i = next(a, 0), j = next(b, 0);
  while (i < a.fields.size() && j < b.fields.size()) {
    const FieldSet &x = a.fields[i], &y = b.fields[j];
    if (x.field != y.field || x.set.size() != y.set.size() ||
        !std::equal(
            x.set.begin(), x.set.end(), y.set.begin(),
            [](const Interval& p, const Interval& q) { return p.lo == q.lo && p.hi == q.hi; })) {
      return false;
    }
    i = next(a, i + 1);
    j = next(b, j + 1);
  }
  return i == a.fields.size() && j == b.fields.size();
}

void build_partition(Tables& tables, const std::vector<PartCube>& cubes, uint32_t skip_mask) {
  const size_t min_group = std::max(kMinGroupSize, cubes.size() / kMinGroupShareDivisor);
  // Count, for every (key field, residual) signature, how many cubes share it: sort the
  // (signature, slot) pairs and write each run's length back to its slots (a hash map of
  // millions of signatures cost most of the compile time at 1M rules).
  auto signature = [&](const IrCube& c, Field key) {
    return hash_fields(c, key, skip_mask) * 31 + static_cast<uint64_t>(key);
  };
  std::vector<std::pair<uint64_t, uint32_t>> signatures;  // (signature, slot)
  signatures.reserve(cubes.size() * 4);
  for (const PartCube& pc : cubes) {
    for (const FieldSet& fs : pc.cube->fields) {
      if (!(skip_mask & field_bit(fs.field))) {
        const auto slot = static_cast<uint32_t>(signatures.size());
        signatures.push_back({signature(*pc.cube, fs.field), slot});
      }
    }
  }
  std::vector<uint32_t> slot_count(signatures.size());
  std::sort(signatures.begin(), signatures.end());
  for (size_t run = 0, end = 0; run < signatures.size(); run = end) {
    while (end < signatures.size() && signatures[end].first == signatures[run].first) ++end;
    for (size_t i = run; i < end; ++i)
      slot_count[signatures[i].second] = static_cast<uint32_t>(end - run);
  }
  std::vector<std::pair<uint64_t, uint32_t>>().swap(signatures);
  uint32_t next_slot = 0;  // the second pass visits the slots in the same order
  std::unordered_map<uint64_t, uint32_t> group_of;  // signature -> index in groups
  std::vector<SetGroup> groups;
  std::vector<PartCube> rest;
  for (const PartCube& pc : cubes) {
    uint32_t best = 0;
    Field key = Field::saddr;
    for (const FieldSet& fs : pc.cube->fields) {
      if (skip_mask & field_bit(fs.field)) continue;
      uint32_t n = slot_count[next_slot++];
      if (n > best) best = n, key = fs.field;
    }
    if (best < min_group) {
      rest.push_back(pc);
      continue;
    }
    uint64_t sig = signature(*pc.cube, key);
    auto [it, inserted] = group_of.emplace(sig, static_cast<uint32_t>(groups.size()));
    if (inserted) groups.push_back({key, pc.cube, {}});
    SetGroup& g = groups[it->second];
    // Hash collisions must not merge different residuals.
    if (!same_residual(*g.residual_source, *pc.cube, key, skip_mask)) {
      rest.push_back(pc);
      continue;
    }
    g.members.push_back(pc);
  }
  std::vector<Probe> probes;
  for (const SetGroup& g : groups) {
    if (g.members.size() < min_group) {
      rest.insert(rest.end(), g.members.begin(), g.members.end());
      continue;
    }
    Probe probe;
    probe.kind = ProbeKind::set;
    probe.index = build_set_table(tables, g, skip_mask);
    probe.best_rule = g.members.front().rule;
    probes.push_back(probe);
  }
  std::stable_sort(rest.begin(), rest.end(),
                   [](const PartCube& a, const PartCube& b) { return a.rule < b.rule; });
  build_tuple_tables(tables, rest, skip_mask, probes);
  std::stable_sort(probes.begin(), probes.end(),
                   [](const Probe& a, const Probe& b) { return a.best_rule < b.best_rule; });
  // Trees are walked side by side when consecutive: move them up to the first one. The probe
  // order stays sorted by best rule when the group counts as one probe with its first's rule.
  auto first_tree = std::find_if(probes.begin(), probes.end(),
                                 [](const Probe& p) { return p.kind == ProbeKind::tree; });
  std::stable_partition(first_tree, probes.end(),
                        [](const Probe& p) { return p.kind == ProbeKind::tree; });
  Partition part;
  part.first_probe = static_cast<uint32_t>(tables.probes.size());
  part.probe_count = static_cast<uint32_t>(probes.size());
  tables.probes.insert(tables.probes.end(), probes.begin(), probes.end());
  tables.partitions.push_back(part);
}

void build_chain(Tables& tables, const IrChain& chain, uint32_t first_rule) {
  ChainTable& ct = tables.chains[chain_slot(chain.kind, chain.hook)];
  ct.present = 1;
  ct.policy = chain.policy;
  ct.first_rule = first_rule;
  std::vector<PartCube> all;
  for (uint32_t r = 0; r < chain.rules.size(); ++r) {
    for (const IrCube& cube : chain.rules[r].condition) all.push_back({first_rule + r, &cube});
  }
  // Greedy dispatch choice: take a field while the copies it causes stay bounded.
  std::vector<DispatchField> dispatch;
  std::vector<size_t> copies(all.size(), 1);
  size_t partitions = 1;
  for (Field f : kDispatchCandidates) {
    if (dispatch.size() == kMaxDispatchFields) break;
    DispatchField d = classes_for(f, all);
    if (d.classes < 2 || partitions * d.classes > kMaxPartitions) continue;
    size_t total = 0;
    std::vector<size_t> next(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      next[i] = copies[i] * classes_of_cube(d, *all[i].cube).size();
      total += next[i];
    }
    if (total > 2 * all.size() + kCopySlack) continue;
    copies.swap(next);
    partitions *= d.classes;
    dispatch.push_back(d);
  }
  uint32_t skip_mask = 0;
  ct.dispatch_count = static_cast<uint8_t>(dispatch.size());
  ct.class_maps_first = static_cast<uint32_t>(tables.class_maps.size());
  for (size_t i = 0; i < dispatch.size(); ++i) {
    ct.dispatch_field[i] = static_cast<uint8_t>(dispatch[i].field);
    ct.class_count[i] = dispatch[i].classes;
    tables.class_maps.insert(tables.class_maps.end(), dispatch[i].class_of.begin(),
                             dispatch[i].class_of.end());
    skip_mask |= field_bit(dispatch[i].field);
  }
  // Distribute cubes to every partition whose classes they accept (rule order is kept).
  std::vector<std::vector<PartCube>> parts(partitions);
  for (const PartCube& pc : all) {
    std::vector<size_t> indices{0};
    for (const DispatchField& d : dispatch) {
      std::vector<size_t> grown;
      for (size_t base : indices)
        for (uint8_t c : classes_of_cube(d, *pc.cube)) grown.push_back(base * d.classes + c);
      indices.swap(grown);
    }
    for (size_t p : indices) parts[p].push_back(pc);
  }
  ct.first_partition = static_cast<uint32_t>(tables.partitions.size());
  ct.partition_count = static_cast<uint32_t>(partitions);
  for (auto& part : parts) build_partition(tables, part, skip_mask);
}

}  // namespace

Tables build_tables(const Ruleset& ruleset, BuildStats* stats) {
  Tables tables;
  tables.conntrack = ruleset.conntrack;
  tables.strings = ruleset.strings;
  auto intern = [&](const std::string& s) {
    tables.strings.push_back(s);
    return static_cast<uint32_t>(tables.strings.size() - 1);
  };
  for (const IrInterface& i : ruleset.interfaces) {
    tables.interfaces.push_back(
        {intern(i.name), i.address, i.netmask, i.gateway, i.vlan, i.dhcp, 0});
  }
  for (const IrRoute& r : ruleset.routes) {
    tables.routes.push_back({r.prefix, r.gateway, r.metric, r.length, r.interface, {}});
  }
  for (const IrChain& chain : ruleset.chains) {
    uint32_t first_rule = static_cast<uint32_t>(tables.rules.size());
    for (const IrRule& r : chain.rules) {
      RuleInfo info;
      info.action = r.action;
      info.flags = r.log ? kRuleLog : 0;
      info.log_rate_per_minute = r.log_rate_per_minute;
      info.log_prefix = r.log_prefix;
      info.nat_address = r.nat_address;
      info.nat_port_lo = r.nat_port_lo;
      info.nat_port_hi = r.nat_port_hi;
      info.source_id = r.source_id;
      tables.rules.push_back(info);
    }
    build_chain(tables, chain, first_rule);
  }
  if (stats) {
    stats->partitions = tables.partitions.size();
    stats->set_tables = tables.sets.size();
    stats->tuple_tables = tables.tuples.size();
    stats->trees = tables.trees.size();
    stats->cubes = tables.cubes.size();
  }
  return tables;
}

size_t table_bytes(const Tables& t) {
  return t.class_maps.size() + t.partitions.size() * sizeof(Partition) +
         t.probes.size() * sizeof(Probe) + t.sets.size() * sizeof(SetTable) +
         t.tuples.size() * sizeof(TupleTable) + t.cubes.size() * sizeof(Cube) +
         t.checks.size() * sizeof(FieldCheck) + t.intervals.size() * sizeof(Interval) +
         (t.keys.size() + t.values.size()) * sizeof(uint32_t) +
         t.tuple_entries.size() * sizeof(TupleEntry) + t.trees.size() * sizeof(TreeTable) +
         t.tree_roots.size() * sizeof(uint32_t) + t.tree_lines.size() * sizeof(TreeLine) +
         t.leaf_octets.size() * sizeof(LeafOctet) + t.rules.size() * sizeof(RuleInfo);
}

}  // namespace keel::firewall
