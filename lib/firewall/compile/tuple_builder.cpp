// Tuple space search with merged tuples (after TupleMerge, Daly et al. 2019): a cube joins the
// first table whose hashed prefix lengths it covers, unless its bucket is already crowded;
// new tables take relaxed lengths so later, similar cubes can share them.
#include <algorithm>
#include <bit>
#include <unordered_map>

#include "compile/builder_parts.hpp"

namespace keel::firewall {
namespace {
constexpr uint32_t kCollisionLimit = 8;  // cubes per key before a table counts as full for it
// Relaxed tables hash at most a /16 of an address: coarse enough that few tables cover most
// rule shapes, fine enough that buckets stay small (the collision limit splits the rest).
constexpr int kAddressRelaxMax = 16;
constexpr int kAddressRelaxStep = 8;

using Lengths = std::array<uint8_t, kTupleFields>;

struct Candidate {
  Lengths lengths{};
  std::unordered_map<uint64_t, uint32_t> load;  // key hash -> cubes
  std::vector<PartCube> cubes;
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
    if (fs && !(skip_mask & field_bit(f))) out[i] = static_cast<uint8_t>(enclosing_length(fs->set, field_bits(f)));
  }
  return out;
}

Lengths relax(Lengths l) {
  for (int i = 0; i < kTupleFields; ++i) {
    int bits = field_bits(kTupleFieldList[i]);
    if (bits == 32) l[i] = static_cast<uint8_t>(std::min<int>(l[i] - l[i] % kAddressRelaxStep, kAddressRelaxMax));
    else if (l[i] != bits || kTupleFieldList[i] == Field::sport) l[i] = 0;  // source ports rarely narrow
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
}  // namespace

void build_tuple_tables(Tables& tables, const std::vector<PartCube>& cubes, uint32_t skip_mask,
                        std::vector<Probe>& probes) {
  std::vector<Candidate> candidates;
  for (const PartCube& pc : cubes) {
    Lengths own = cube_lengths(*pc.cube, skip_mask);
    Candidate* chosen = nullptr;
    for (Candidate& c : candidates) {
      if (!covers(c.lengths, own)) continue;
      auto it = c.load.find(tuple_hash(key_of(*pc.cube, c.lengths)));
      if (it == c.load.end() || it->second < kCollisionLimit) {
        chosen = &c;
        break;
      }
    }
    if (!chosen) {
      // Prefer relaxed lengths; fall back to the cube's own (identical keys may still pile up there).
      Lengths relaxed = relax(own);
      auto existing = [&](const Lengths& l) {
        return std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& c) { return c.lengths == l; });
      };
      auto it = existing(relaxed);
      if (it == candidates.end()) {
        candidates.push_back({relaxed, {}, {}});
        chosen = &candidates.back();
      } else if ((it = existing(own)) == candidates.end()) {
        candidates.push_back({own, {}, {}});
        chosen = &candidates.back();
      } else {
        chosen = &*it;
      }
    }
    ++chosen->load[tuple_hash(key_of(*pc.cube, chosen->lengths))];
    chosen->cubes.push_back(pc);
  }

  for (Candidate& c : candidates) {
    TupleTable table;
    table.lengths = c.lengths;
    table.bucket_bits = static_cast<uint8_t>(std::bit_width(c.load.size()));
    const uint32_t buckets = 1u << table.bucket_bits;
    std::vector<std::pair<uint32_t, uint32_t>> placed;  // (bucket, cube id), cubes in rule order
    placed.reserve(c.cubes.size());
    for (const PartCube& pc : c.cubes) {
      uint64_t h = tuple_hash(key_of(*pc.cube, c.lengths));
      uint32_t bucket = table.bucket_bits == 0 ? 0 : static_cast<uint32_t>(h >> (64 - table.bucket_bits));
      Cube cube;
      cube.rule = pc.rule;
      cube.first_check = emit_checks(tables, *pc.cube, skip_mask, cube.check_count);
      tables.cubes.push_back(cube);
      placed.push_back({bucket, static_cast<uint32_t>(tables.cubes.size() - 1)});
    }
    std::stable_sort(placed.begin(), placed.end(), [](auto& a, auto& b) { return a.first < b.first; });
    table.offsets_first = static_cast<uint32_t>(tables.keys.size());
    table.entries_first = static_cast<uint32_t>(tables.values.size());
    table.entries_count = static_cast<uint32_t>(placed.size());
    size_t next = 0;
    for (uint32_t b = 0; b <= buckets; ++b) {
      while (next < placed.size() && placed[next].first < b) ++next;
      tables.keys.push_back(static_cast<uint32_t>(next));
    }
    for (auto& p : placed) tables.values.push_back(p.second);
    tables.tuples.push_back(table);
    Probe probe;
    probe.kind = ProbeKind::tuple;
    probe.index = static_cast<uint32_t>(tables.tuples.size() - 1);
    probe.best_rule = c.cubes.front().rule;
    probes.push_back(probe);
  }
}

}  // namespace keel::firewall
