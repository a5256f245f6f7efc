// Tuple space search with merged tuples (after TupleMerge, Daly et al. 2019). Each cube has a
// relaxed shape (addresses hashed on /16 or not at all, destination ports exact or not, source
// ports not), so most rules fall into a handful of tables per partition. A cube joins the first
// table whose lengths it covers unless its bucket already holds kCollisionLimit cubes; only then
// does a finer table appear. Cubes an earlier (packed) cube covers can never be the first match
// and are dropped. Cubes of the 5-tuple shape are stored packed (TupleEntry).
#include <algorithm>
#include <bit>
#include <optional>
#include <unordered_map>

#include "compile/builder_parts.hpp"

namespace keel::firewall {
namespace {
constexpr uint32_t kCollisionLimit = 8;  // cubes per key before a table counts as full for it
constexpr size_t kSmallTable = 4;        // tables this small merge into a coarser one when they fit
// First choice: addresses hashed on a /16 (sites) or not at all. A cube whose bucket is full
// there moves on to lengths rounded down to a multiple of 8 (at most /24), then to its own.
constexpr int kAddressRelaxCoarse = 16;
constexpr int kAddressRelaxFine = 24;
constexpr int kAddressRelaxStep = 8;
// Packed cubes move into a HyperSplit tree when a partition has this many live ones spread
// over more tables than this: every further table is one more probe per lookup, a tree costs
// one walk.
constexpr size_t kTreeMinEntries = 64;
constexpr size_t kTreeMinTables = 2;

using Lengths = std::array<uint8_t, kTupleFields>;

struct Bucket {
  uint32_t count = 0;
  int32_t head = -1;  // last cube placed (index into Candidate::cubes), chained through `next`
};

struct Candidate {
  Lengths lengths{};
  std::unordered_map<uint64_t, Bucket> load;  // key hash -> cubes
  std::vector<PartCube> cubes;
  std::vector<std::optional<TupleEntry>> packed;  // per cube, when it has the 5-tuple shape
  std::vector<int32_t> next;                      // previous cube of the same bucket
};

// Leading bits shared by the lowest and highest value: the enclosing prefix length.
int enclosing_length(const IntervalSet& set, int bits) {
  uint32_t diff = set.front().lo ^ set.back().hi;
  return bits - static_cast<int>(std::bit_width(diff));
}

Lengths cube_lengths(const IrCube& cube, uint32_t skip_mask) {
  Lengths out{};
  for (int i = 0; i < kTupleFields; ++i) {
    Field f = kTupleFieldList[i];
    const FieldSet* fs = find_field(cube, f);
    if (fs && !(skip_mask & field_bit(f)))
      out[i] = static_cast<uint8_t>(enclosing_length(fs->set, field_bits(f)));
  }
  return out;
}

// Coarse: addresses /16 or nothing, ports exact or nothing (source ports never).
Lengths relax_coarse(Lengths l) {
  for (int i = 0; i < kTupleFields; ++i) {
    int bits = field_bits(kTupleFieldList[i]);
    if (bits == 32)
      l[i] = static_cast<uint8_t>(l[i] >= kAddressRelaxCoarse ? kAddressRelaxCoarse : 0);
    else if (l[i] != bits || kTupleFieldList[i] == Field::sport)
      l[i] = 0;
  }
  return l;
}

// Fine: addresses to a multiple of 8 up to /24, exact ports (source ports too).
Lengths relax_fine(Lengths l) {
  for (int i = 0; i < kTupleFields; ++i) {
    int bits = field_bits(kTupleFieldList[i]);
    if (bits == 32)
      l[i] =
          static_cast<uint8_t>(std::min<int>(l[i] - l[i] % kAddressRelaxStep, kAddressRelaxFine));
    else if (l[i] != bits)
      l[i] = 0;
  }
  return l;
}

bool covers(const Lengths& table, const Lengths& cube) {
  for (int i = 0; i < kTupleFields; ++i)
    if (table[i] > cube[i]) return false;
  return true;
}

std::array<uint32_t, kTupleFields> key_of(const IrCube& cube, const Lengths& lengths) {
  std::array<uint32_t, kTupleFields> key{};
  for (int i = 0; i < kTupleFields; ++i) {
    if (lengths[i] == 0) continue;
    Field f = kTupleFieldList[i];
    key[i] = leading_bits(find_field(cube, f)->set.front().lo, field_bits(f), lengths[i]);
  }
  return key;
}

// The packed form of a cube whose residual fields are all tuple fields with one interval each,
// addresses being prefixes; nullopt otherwise.
std::optional<TupleEntry> pack(const PartCube& pc, uint32_t skip_mask) {
  TupleEntry e;
  e.rule = pc.rule;
  e.sport_hi = e.dport_hi = 0xFFFF;
  e.proto_hi = 0xFF;
  for (const FieldSet& fs : pc.cube->fields) {
    if (skip_mask & field_bit(fs.field)) continue;
    if (fs.set.size() != 1) return std::nullopt;
    const Interval iv = fs.set.front();
    switch (fs.field) {
      case Field::saddr:
      case Field::daddr: {
        int length = enclosing_length(fs.set, 32);
        if (iv.lo != (iv.lo & prefix_mask(length)) || iv.hi != (iv.lo | ~prefix_mask(length)))
          return std::nullopt;
        (fs.field == Field::saddr ? e.saddr : e.daddr) = iv.lo;
        (fs.field == Field::saddr ? e.saddr_length : e.daddr_length) = static_cast<uint8_t>(length);
        break;
      }
      case Field::sport:
        e.sport_lo = static_cast<uint16_t>(iv.lo), e.sport_hi = static_cast<uint16_t>(iv.hi);
        break;
      case Field::dport:
        e.dport_lo = static_cast<uint16_t>(iv.lo), e.dport_hi = static_cast<uint16_t>(iv.hi);
        break;
      case Field::proto:
        e.proto_lo = static_cast<uint8_t>(iv.lo), e.proto_hi = static_cast<uint8_t>(iv.hi);
        break;
      default:
        return std::nullopt;
    }
  }
  return e;
}

// Every packet `b` matches, `a` matches too.
bool entry_covers(const TupleEntry& a, const TupleEntry& b) {
  return a.saddr_length <= b.saddr_length && (b.saddr & prefix_mask(a.saddr_length)) == a.saddr &&
         a.daddr_length <= b.daddr_length && (b.daddr & prefix_mask(a.daddr_length)) == a.daddr &&
         a.sport_lo <= b.sport_lo && b.sport_hi <= a.sport_hi && a.dport_lo <= b.dport_lo &&
         b.dport_hi <= a.dport_hi && a.proto_lo <= b.proto_lo && b.proto_hi <= a.proto_hi;
}

// True when a cube already in `bucket` covers `entry` (so the new cube is dead).
bool shadowed(const Candidate& c, const Bucket& bucket, const TupleEntry& entry) {
  for (int32_t i = bucket.head; i >= 0; i = c.next[i])
    if (c.packed[i] && entry_covers(*c.packed[i], entry)) return true;
  return false;
}

// A probe costs about as much as scanning a few bucket entries, so a table holding only a few
// cubes moves into a coarser table when the buckets it lands in stay within the limit.
void merge_small_tables(std::vector<Candidate>& candidates) {
  for (size_t t = candidates.size(); t-- > 0;) {
    Candidate& small = candidates[t];
    if (small.cubes.empty() || small.cubes.size() > kSmallTable) continue;
    for (size_t u = 0; u < candidates.size(); ++u) {
      Candidate& into = candidates[u];
      if (u == t || into.cubes.empty() || !covers(into.lengths, small.lengths)) continue;
      std::unordered_map<uint64_t, uint32_t> added;
      bool fits = true;
      for (const PartCube& pc : small.cubes) {
        uint64_t key = tuple_hash(key_of(*pc.cube, into.lengths));
        auto it = into.load.find(key);
        fits &= (it == into.load.end() ? 0 : it->second.count) + ++added[key] <= kCollisionLimit;
      }
      if (!fits) continue;
      for (const auto& [key, n] : added) into.load[key].count += n;
      // Keep the cubes in rule order (buckets are emitted in that order).
      std::vector<uint32_t> order(into.cubes.size() + small.cubes.size());
      std::vector<PartCube> cubes(into.cubes);
      cubes.insert(cubes.end(), small.cubes.begin(), small.cubes.end());
      std::vector<std::optional<TupleEntry>> packed(into.packed);
      packed.insert(packed.end(), small.packed.begin(), small.packed.end());
      for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t b) { return cubes[a].rule < cubes[b].rule; });
      into.cubes.clear();
      into.packed.clear();
      for (uint32_t i : order) into.cubes.push_back(cubes[i]), into.packed.push_back(packed[i]);
      small.cubes.clear();
      small.packed.clear();
      break;
    }
  }
}

// Replication is what makes decision trees big: a rule wide in the field a node splits is
// copied to both sides. Where one tree for all packed cubes would copy too much, as in
// EffiCuts/CutSplit, packed cubes are grouped by which address is
// specific and how far (the first group whose address prefix is at least as long), and each
// group gets its own tree whose root cuts that address that deep: no copies at the top, and
// rules wide in an address never share a tree with rules split on it.
struct TreeGroup {
  int field;       // index into kTupleFieldList (0 saddr, 1 daddr); the root cut's field
  int min_length;  // prefix length every member has in that field: bits the root may cut
  int merge_into;  // group whose tree this one first tries to join (-1: none)
};
constexpr TreeGroup kTreeGroups[] = {{0, 16, -1}, {1, 16, -1}, {0, 8, 0}, {1, 8, 1}, {0, 0, -1}};
constexpr int kTreeGroupCount = static_cast<int>(std::size(kTreeGroups));

int tree_group(const TupleEntry& e) {
  for (int g = 0;; ++g) {
    const int length = kTreeGroups[g].field == 0 ? e.saddr_length : e.daddr_length;
    if (length >= kTreeGroups[g].min_length) return g;
  }
}

// Moves packed cubes into trees (one per group) when the tuple layout would need several
// probes; a group whose tree exceeds its copy budget stays in the tuple tables.
void move_packed_to_tree(Tables& tables, std::vector<Candidate>& candidates,
                         std::vector<Probe>& probes) {
  std::array<std::vector<TupleEntry>, kTreeGroupCount> groups;
  size_t packed_tables = 0, packed = 0;
  for (const Candidate& c : candidates) {
    const size_t before = packed;
    for (const auto& p : c.packed) {
      if (!p) continue;
      groups[tree_group(*p)].push_back(*p);
      ++packed;
    }
    packed_tables += packed > before;
  }
  if (packed < kTreeMinEntries || packed_tables <= kTreeMinTables) return;
  std::array<bool, kTreeGroupCount> moved{};
  auto by_rule = [](const TupleEntry& a, const TupleEntry& b) { return a.rule < b.rule; };
  // First, where two or more groups would get trees, one tree for all of them (decision 0066):
  // a lookup then walks one tree instead of one per group. Its root cut is chosen over the tuple
  // fields (the source group's address is often concentrated under one prefix, the destination
  // spread). It must fit the same copy budget as a group's tree; where the groups would copy each
  // other too much (a source-only rule copied into every split on the destination and the other way
  // round), it does not, and the groups get their trees as before.
  const auto group_trees = std::count_if(groups.begin(), groups.end(), [](const auto& group) {
    return group.size() >= kTreeMinEntries;
  });
  if (group_trees >= 2) {
    std::vector<TupleEntry> all;
    all.reserve(packed);
    for (const std::vector<TupleEntry>& group : groups)
      all.insert(all.end(), group.begin(), group.end());
    std::stable_sort(all.begin(), all.end(), by_rule);
    if (build_tree(tables, all, kChooseRootCut, kMaxTreeRootBits, probes)) moved.fill(true);
  }
  // A /8 group joins its /16 sibling's tree when the copies fit that tree's budget (build_tree
  // refuses otherwise): one tree walk less per lookup. Its entries are copied into every root
  // slot their prefix covers.
  for (int g = 0; g < kTreeGroupCount; ++g) {
    const int into = kTreeGroups[g].merge_into;
    if (moved[g] || into < 0 || groups[g].empty() || groups[into].size() < kTreeMinEntries)
      continue;
    std::vector<TupleEntry> entries = groups[into];
    entries.insert(entries.end(), groups[g].begin(), groups[g].end());
    std::stable_sort(entries.begin(), entries.end(), by_rule);
    if (!build_tree(tables, entries, kTreeGroups[into].field, kTreeGroups[into].min_length, probes))
      continue;
    moved[g] = moved[into] = true;
  }
  for (int g = 0; g < kTreeGroupCount; ++g) {
    std::vector<TupleEntry>& entries = groups[g];
    if (moved[g] || entries.size() < kTreeMinEntries) continue;
    std::stable_sort(entries.begin(), entries.end(), by_rule);
    moved[g] = build_tree(tables, entries, kTreeGroups[g].field, kTreeGroups[g].min_length, probes);
  }
  // The tuple tables keep the cubes no tree holds (bucket loads only shrink: still valid).
  for (Candidate& c : candidates) {
    std::vector<PartCube> cubes;
    std::vector<std::optional<TupleEntry>> kept;
    for (size_t i = 0; i < c.cubes.size(); ++i) {
      if (c.packed[i] && moved[tree_group(*c.packed[i])]) continue;
      cubes.push_back(c.cubes[i]);
      kept.push_back(c.packed[i]);
    }
    c.cubes.swap(cubes);
    c.packed.swap(kept);
    c.next.clear();
  }
}

void emit_table(Tables& tables, const Candidate& c, uint32_t skip_mask,
                std::vector<Probe>& probes) {
  TupleTable table;
  table.lengths = c.lengths;
  table.bucket_bits = static_cast<uint8_t>(std::bit_width(c.load.size()));
  const bool packed =
      std::all_of(c.packed.begin(), c.packed.end(), [](const auto& p) { return p.has_value(); });
  table.format = packed ? TupleFormat::packed : TupleFormat::cubes;
  const uint32_t buckets = 1u << table.bucket_bits;
  std::vector<std::pair<uint32_t, uint32_t>> placed;  // (bucket, cube), cubes in rule order
  placed.reserve(c.cubes.size());
  for (uint32_t i = 0; i < c.cubes.size(); ++i) {
    uint64_t h = tuple_hash(key_of(*c.cubes[i].cube, c.lengths));
    uint32_t bucket =
        table.bucket_bits == 0 ? 0 : static_cast<uint32_t>(h >> (64 - table.bucket_bits));
    placed.push_back({bucket, i});
  }
  std::stable_sort(placed.begin(), placed.end(),
                   [](auto& a, auto& b) { return a.first < b.first; });
  table.offsets_first = static_cast<uint32_t>(tables.keys.size());
  table.entries_first =
      static_cast<uint32_t>(packed ? tables.tuple_entries.size() : tables.values.size());
  table.entries_count = static_cast<uint32_t>(placed.size());
  size_t next = 0;
  for (uint32_t b = 0; b <= buckets; ++b) {
    while (next < placed.size() && placed[next].first < b) ++next;
    tables.keys.push_back(static_cast<uint32_t>(next));
  }
  for (auto& p : placed) {
    if (packed) {
      tables.tuple_entries.push_back(*c.packed[p.second]);
      continue;
    }
    const PartCube& pc = c.cubes[p.second];
    Cube cube;
    cube.rule = pc.rule;
    cube.first_check = emit_checks(tables, *pc.cube, skip_mask, cube.check_count);
    tables.cubes.push_back(cube);
    tables.values.push_back(static_cast<uint32_t>(tables.cubes.size() - 1));
  }
  tables.tuples.push_back(table);
  Probe probe;
  probe.kind = ProbeKind::tuple;
  probe.index = static_cast<uint32_t>(tables.tuples.size() - 1);
  probe.best_rule = c.cubes.front().rule;
  probes.push_back(probe);
}
}  // namespace

void build_tuple_tables(Tables& tables, const std::vector<PartCube>& cubes, uint32_t skip_mask,
                        std::vector<Probe>& probes) {
  std::vector<Candidate> candidates;
  auto existing = [&](const Lengths& l) {
    auto it = std::find_if(candidates.begin(), candidates.end(),
                           [&](const Candidate& c) { return c.lengths == l; });
    return it == candidates.end() ? nullptr : &*it;
  };
  for (const PartCube& pc : cubes) {
    const Lengths own = cube_lengths(*pc.cube, skip_mask);
    const std::optional<TupleEntry> entry = pack(pc, skip_mask);
    Candidate* chosen = nullptr;
    uint64_t chosen_key = 0;
    bool dead = false;
    // An earlier cube covering this one sits in a table whose lengths this cube covers, in the
    // bucket of this cube's key (its hashed bits agree): so checking those buckets finds them all.
    for (Candidate& c : candidates) {
      if (!covers(c.lengths, own)) continue;
      const uint64_t key = tuple_hash(key_of(*pc.cube, c.lengths));
      auto it = c.load.find(key);
      if (it != c.load.end() && entry && shadowed(c, it->second, *entry)) {
        dead = true;
        break;
      }
      if (!chosen && (it == c.load.end() || it->second.count < kCollisionLimit))
        chosen = &c, chosen_key = key;
      if (chosen && !entry) break;
    }
    if (dead) continue;
    if (!chosen) {
      // A new table: the coarse shape if there is none yet, else finer ones. When all exist
      // (identical keys pile up), the cube goes to its own lengths' table over the limit.
      for (const Lengths& l : {relax_coarse(own), relax_fine(own), own}) {
        if (!existing(l)) {
          candidates.push_back({l, {}, {}, {}, {}});
          chosen = &candidates.back();
          break;
        }
      }
      if (!chosen) chosen = existing(own);
      chosen_key = tuple_hash(key_of(*pc.cube, chosen->lengths));
    }
    Bucket& bucket = chosen->load[chosen_key];
    chosen->next.push_back(bucket.head);
    bucket.head = static_cast<int32_t>(chosen->cubes.size());
    ++bucket.count;
    chosen->cubes.push_back(pc);
    chosen->packed.push_back(entry);
  }
  move_packed_to_tree(tables, candidates, probes);
  merge_small_tables(candidates);
  for (const Candidate& c : candidates)
    if (!c.cubes.empty()) emit_table(tables, c, skip_mask, probes);
}

}  // namespace keel::firewall
