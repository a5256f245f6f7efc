#pragma once
// Table blob layout, version 8: the tables in their final layout, so a blob is used where it lies
// (compiled into the image, decision 0064) after checks that read its structure, not its bulk.
// Little-endian, x86-64 record layouts as in tables.hpp; the blob starts 64-byte aligned.
//
//   Header (64 bytes) | ChainTable[kChainSlots] | PoolRef[kPoolCount] | pools
//
// The directory lists the pools in the order of for_each_pool, then the strings as two pools:
// kStringOffsets (uint32 offsets, one more than strings) and kStringBytes (their bytes). Each
// pool starts on a 64-byte boundary (zero padding before it), none overlapping another; the
// compiler places them in kPlacement's order, the small descriptors every lookup reads first, so
// that they share the head's page (docs/decisions/0065). `checksum` is FNV-1a of the head (header,
// chains and pool directory, the checksum field read as zero): the pools' contents are checked by
// the validator where a lookup would trust them, and their integrity is the delivery's (the image;
// the management port's SHA-256 under HMAC, decision 0052).
#include <cstdint>

#include "keel/firewall/tables.hpp"

namespace keel::firewall::blob {

inline constexpr uint8_t kMagic[8] = {'K', 'E', 'E', 'L', 'F', 'W', 0, 1};
// 2: packed tuple tables (tuple_entries), 3: trees, 4: set pairs, 5: tree leaves as quads, 6: tree
// lines, 7: leaves as octets, 8: final layout (pools aligned, a directory; used in place)
inline constexpr uint32_t kVersion = 8;
inline constexpr uint64_t kAlign = 64;  // the blob and each pool start on a cache line

struct Header {
  uint8_t magic[8];
  uint32_t version;
  uint32_t pool_count;  // kPoolCount
  uint64_t size;        // the whole blob
  uint64_t checksum;    // FNV-1a of the head with this field zero
  uint8_t conntrack;
  uint8_t pad[31];
};

struct PoolRef {
  uint64_t offset;  // from the blob's start, a multiple of kAlign
  uint64_t count;   // records
};

// The pools of for_each_pool, then the strings.
inline constexpr uint32_t kTablePools = 18;
inline constexpr uint32_t kStringOffsets = kTablePools;
inline constexpr uint32_t kStringBytes = kTablePools + 1;
inline constexpr uint32_t kPoolCount = kTablePools + 2;
inline constexpr uint32_t kTreeLinesPool = 13;  // on a page (kPageBytes) unless within one

// Where the compiler puts the pools (directory indices), the first ones on the head's page:
// class maps, partitions, probes, set and tuple tables, trees (each a few records), then the
// rest in directory order but the tree lines, last: they start on a page, and the padding
// before them should push no other pool off a page. The loader takes any order (map_tables).
inline constexpr uint32_t kPlacement[kPoolCount] = {0, 1,  2,  3,  4,  11, 5,  6,  7,  8,
                                                    9, 10, 12, 14, 15, 16, 17, 18, 19, 13};

inline constexpr uint64_t kChainsOffset = sizeof(Header);
inline constexpr uint64_t kDirectoryOffset = kChainsOffset + sizeof(ChainTable) * kChainSlots;
inline constexpr uint64_t kHeadSize = kDirectoryOffset + sizeof(PoolRef) * kPoolCount;

constexpr bool places_every_pool_once() {
  bool placed[kPoolCount]{};
  for (const uint32_t pool : kPlacement) {
    if (pool >= kPoolCount || placed[pool]) return false;
    placed[pool] = true;
  }
  return true;
}
static_assert(places_every_pool_once());
static_assert(sizeof(Header) == 64 && sizeof(PoolRef) == 16);
static_assert(kChainsOffset % alignof(ChainTable) == 0 && kDirectoryOffset % 8 == 0);

constexpr uint64_t align_up(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

constexpr uint64_t fnv1a(const uint8_t* data, uint64_t size, uint64_t h = 0xcbf29ce484222325ull) {
  for (uint64_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

// The head's checksum: every byte of the first kHeadSize but the checksum field's.
inline uint64_t head_checksum(const uint8_t* blob) {
  constexpr uint64_t at = 8 + 4 + 4 + 8;  // offsetof(Header, checksum)
  return fnv1a(blob + at + 8, kHeadSize - at - 8, fnv1a(blob, at));
}

// Applies `visit` to each pool in blob order (encoder and loader walk the same list).
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
