#pragma once
// Table blob layout, version 7 (little-endian, x86-64 record layouts as in tables.hpp):
//   header: magic[8] | version u32 | reserved u32 | payload_size u64 | checksum u64 (FNV-1a of
//   payload) payload: conntrack u8, the chain slots, then each pool as u64 count + raw records,
//            strings as u64 count + (u32 length + bytes) each.
#include <cstdint>

namespace keel::firewall::blob {

inline constexpr uint8_t kMagic[8] = {'K', 'E', 'E', 'L', 'F', 'W', 0, 1};
// 2: packed tuple tables (tuple_entries), 3: trees, 4: set pairs, 5: tree leaves as quads, 6: tree
// lines, 7: leaves as octets
inline constexpr uint32_t kVersion = 7;
inline constexpr uint64_t kHeaderSize = 8 + 4 + 4 + 8 + 8;

constexpr uint64_t fnv1a(const uint8_t* data, uint64_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

// Applies `visit` to each pool in blob order (encoder and decoder walk the same list).
template <typename Tables, typename Visitor>
void for_each_pool(Tables& t, Visitor&& visit) {
  visit(t.class_maps);
  visit(t.partitions);
  visit(t.probes);
  visit(t.sets);
  visit(t.tuples);
  visit(t.cubes);
  visit(t.checks);
  visit(t.intervals);
  visit(t.keys);
  visit(t.values);
  visit(t.tuple_entries);
  visit(t.trees);
  visit(t.tree_roots);
  visit(t.tree_lines);
  visit(t.leaf_octets);
  visit(t.rules);
  visit(t.interfaces);
  visit(t.routes);
}

}  // namespace keel::firewall::blob
