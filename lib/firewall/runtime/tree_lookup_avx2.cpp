// Tree lookups with AVX2 (docs/decisions/0018-firewall-avx2-tree-walks.md): the same walk and
// leaf test as Classifier::walk_trees, in fewer instructions, compiled for AVX2 through function
// attributes and called only where cpu_has_avx2(). A lookup was instruction-bound: ~650
// instructions at 100k rules of a ClassBench-structured set, most of them walking lines bit by
// bit and testing leaves octet by octet.
//  - A line's seven splits are compared at once: the packet's tuple fields are permuted into
//    split order (vpermd by the line's 3-bit field indices) and compared with the split values;
//    the 7-bit result picks the exit through a 128-entry table instead of three dependent steps.
//  - A leaf's octets are tested into one match mask (eight bits an octet) and the first set bit
//    names the best lane: one select per leaf instead of one per octet.
//  - The packet's broadcasts are made once per lookup, not once per tree.
#include "runtime/tree_lookup_avx2.hpp"

#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>

#include "keel/firewall/classifier.hpp"
#include "runtime/leaf_match.hpp"
#include "runtime/touches.hpp"

namespace keel::firewall {
namespace {
constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kOctetLanes = 8;
constexpr uint32_t kFixedOctets = 3;  // leaves of up to 24 entries are tested without a loop
constexpr int kLineFieldMask = 7;     // a split's field index is 3 bits of TreeLine::fields

// The exit (0-7) a line's walk takes for each outcome of its seven splits (bit i: the value is
// at least split i's), following heap order: split i leads to 2i + 1 or 2i + 2.
constexpr std::array<uint8_t, 128> exit_table() {
  std::array<uint8_t, 128> table{};
  for (uint32_t outcome = 0; outcome < 128; ++outcome) {
    uint32_t at = 0;
    for (int level = 0; level < kLineLevels; ++level) at = 2 * at + 1 + ((outcome >> at) & 1);
    table[outcome] = static_cast<uint8_t>(at - kLineSplits);
  }
  return table;
}
constexpr std::array<uint8_t, 128> kExit = exit_table();
constexpr std::array<uint8_t, kTupleFields> kTupleBits = {32, 32, 16, 16, 8};

struct PacketVectors {
  __m256i tuple;  // saddr, daddr, sport, dport, proto, 0, 0, 0, each xor the sign bit
  __m256i saddr, daddr, sport, dport, proto;  // broadcasts for the leaf test
};

__attribute__((target("avx2"))) inline __m256i lanes(const uint32_t (&field)[kOctetLanes]) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(field));
}

// The reference a walk from `ref` reaches: lines until a leaf (the loader checked that walks end).
__attribute__((target("avx2"))) inline uint32_t walk(const TreeLine* lines, uint32_t ref,
                                                     const PacketVectors& p) {
  const __m256i shifts = _mm256_setr_epi32(0, 0, 3, 6, 9, 12, 15, 18);
  const __m256i field_mask = _mm256_set1_epi32(kLineFieldMask);
  const __m256i sign = _mm256_set1_epi32(static_cast<int>(kSignBit));
  while ((ref & kTreeLeafRef) == 0) {
    const TreeLine& line = lines[ref];
    KEEL_FW_TOUCH(&line, sizeof line);
    // Lane 0 holds `fields`, lanes 1-7 the split values; lane i + 1 gets split i's field.
    const __m256i words = _mm256_load_si256(reinterpret_cast<const __m256i*>(&line));
    const __m256i packed = _mm256_set1_epi32(static_cast<int>(line.fields));
    const __m256i fields = _mm256_and_si256(_mm256_srlv_epi32(packed, shifts), field_mask);
    const __m256i keys = _mm256_permutevar8x32_epi32(p.tuple, fields);
    // Unsigned "value > key" as signed after flipping both sign bits: the split's left side.
    const __m256i left = _mm256_cmpgt_epi32(_mm256_xor_si256(words, sign), keys);
    const uint32_t outcome =
        ~static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(left))) >> 1 & 0x7F;
    ref = line.exit[kExit[outcome]];
  }
  return ref;
}

// Match bits of one octet: bit i when lane i matches.
__attribute__((target("avx2"))) inline uint32_t octet_matches(const LeafOctet& octet,
                                                              const PacketVectors& p) {
  const __m256i source =
      _mm256_cmpeq_epi32(_mm256_and_si256(p.saddr, lanes(octet.saddr_mask)), lanes(octet.saddr));
  const __m256i destination =
      _mm256_cmpeq_epi32(_mm256_and_si256(p.daddr, lanes(octet.daddr_mask)), lanes(octet.daddr));
  // A range half greater than the packet's half is a bound the packet misses (range_key).
  const __m256i outside =
      _mm256_or_si256(_mm256_or_si256(_mm256_cmpgt_epi16(lanes(octet.sport), p.sport),
                                      _mm256_cmpgt_epi16(lanes(octet.dport), p.dport)),
                      _mm256_cmpgt_epi16(lanes(octet.proto), p.proto));
  const __m256i match = _mm256_and_si256(_mm256_and_si256(source, destination),
                                         _mm256_cmpeq_epi32(outside, _mm256_setzero_si256()));
  return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(match)));
}

// Leaves the builder could not split below kFixedOctets octets, in order until a lane matches.
__attribute__((target("avx2"))) uint32_t long_leaf(const LeafOctet* octets, uint32_t count,
                                                   const PacketVectors& p, uint32_t best) {
  for (uint32_t o = 0; o < count; ++o) {
    KEEL_FW_TOUCH(&octets[o], sizeof octets[o]);
    if (const uint32_t m = octet_matches(octets[o], p))
      return std::min(best, octets[o].rule[std::countr_zero(m)]);
  }
  return best;
}

// Stands in for the octets of an empty leaf, so the rule read below needs no branch.
alignas(64) const LeafOctet kNoOctet = [] {
  LeafOctet octet{};
  std::fill(std::begin(octet.rule), std::end(octet.rule), kNoRule);
  return octet;
}();

// The lowest rule matching in a leaf's `count` octets (lanes in rule order), or `best`.
// Leaves of up to kFixedOctets octets (nearly all: the builder splits past 24 entries) are
// tested as exactly that many, repeating the last (its bits masked off), and the first matching
// lane is taken with a mask: how many octets a leaf has and whether it matches are data the
// branch predictor cannot learn (docs/decisions/0018-firewall-avx2-tree-walks.md).
__attribute__((target("avx2,bmi"))) inline uint32_t leaf(const LeafOctet* octets, uint32_t count,
                                                         const PacketVectors& p, uint32_t best) {
  if (count > kFixedOctets) return long_leaf(octets, count, p, best);
  const LeafOctet* base = count ? octets : &kNoOctet;
  KEEL_FW_TOUCH(base, count * sizeof(LeafOctet));
  const uint32_t last = count ? count - 1 : 0;
  uint64_t bits = 0;
  for (uint32_t o = 0; o < kFixedOctets; ++o) {
    const uint64_t in_leaf = 0 - static_cast<uint64_t>(o <= last);
    bits |= (uint64_t{octet_matches(base[std::min(o, last)], p)} & in_leaf) << (kOctetLanes * o);
  }
  // tzcnt of 0 is 64: then lane 0 of the first octet is read and masked off.
  const uint32_t lane = static_cast<uint32_t>(_tzcnt_u64(bits));
  const uint32_t take = 0u - static_cast<uint32_t>(bits != 0);
  const uint32_t at = lane & take;
  const uint32_t rule = (base[at / kOctetLanes].rule[at % kOctetLanes] & take) | (kNoRule & ~take);
  return std::min(best, rule);
}

__attribute__((target("avx2"))) PacketVectors packet_vectors(const Packet& packet) {
  PacketVectors p;
  p.tuple = _mm256_xor_si256(
      _mm256_setr_epi32(static_cast<int>(packet.saddr), static_cast<int>(packet.daddr),
                        packet.sport, packet.dport, packet.proto, 0, 0, 0),
      _mm256_set1_epi32(static_cast<int>(kSignBit)));
  p.saddr = _mm256_set1_epi32(static_cast<int>(packet.saddr));
  p.daddr = _mm256_set1_epi32(static_cast<int>(packet.daddr));
  p.sport = _mm256_set1_epi32(static_cast<int>(range_key(packet.sport, packet.sport)));
  p.dport = _mm256_set1_epi32(static_cast<int>(range_key(packet.dport, packet.dport)));
  p.proto = _mm256_set1_epi32(static_cast<int>(range_key(packet.proto, packet.proto)));
  return p;
}

template <uint32_t kCount>
__attribute__((target("avx2,bmi"))) uint32_t walk_trees(const TableView& tables,
                                                        const Probe* probes, const Packet& packet,
                                                        uint32_t best) {
  const uint32_t key[kTupleFields] = {packet.saddr, packet.daddr, packet.sport, packet.dport,
                                      packet.proto};
  const PacketVectors p = packet_vectors(packet);
  uint32_t ref[kCount];
  const TreeTable* trees[kCount];
  for (uint32_t t = 0; t < kCount; ++t) {
    trees[t] = &tables.trees[probes[t].index];
    KEEL_FW_TOUCH(trees[t], sizeof(TreeTable));
    const uint32_t field = trees[t]->root_field;
    const uint32_t slot = leading_bits(key[field], kTupleBits[field], trees[t]->root_bits);
    ref[t] = tables.tree_roots[trees[t]->roots_first + slot];
    KEEL_FW_TOUCH(&tables.tree_roots[trees[t]->roots_first + slot], sizeof(uint32_t));
  }
  for (uint32_t t = 0; t < kCount; ++t)
    ref[t] = walk(tables.tree_lines.data() + trees[t]->lines_first, ref[t], p);
  for (uint32_t t = 0; t < kCount; ++t) {
    best = leaf(tables.leaf_octets.data() + trees[t]->octets_first + leaf_first(ref[t]),
                leaf_count(ref[t]), p, best);
  }
  return best;
}
}  // namespace

bool cpu_has_avx2() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX)) return false;
  uint32_t xcr0 = 0, xcr0_high = 0;
  asm volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  if ((xcr0 & 6) != 6) return false;  // the OS saves SSE and AVX state
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2) && (b & bit_BMI);
}

__attribute__((target("avx2,bmi"))) uint32_t leaf_match_avx2(const LeafOctet* octets,
                                                             uint32_t count, const Packet& packet) {
  return leaf(octets, count, packet_vectors(packet), kNoRule);
}

uint32_t lookup_trees_avx2(const TableView& tables, const Probe* probes, uint32_t count,
                           const Packet& packet, uint32_t best) {
  switch (count) {
    case 1:
      return walk_trees<1>(tables, probes, packet, best);
    case 2:
      return walk_trees<2>(tables, probes, packet, best);
    case 3:
      return walk_trees<3>(tables, probes, packet, best);
    case 4:
      return walk_trees<4>(tables, probes, packet, best);
    case 5:
      return walk_trees<5>(tables, probes, packet, best);
    case 6:
      return walk_trees<6>(tables, probes, packet, best);
    case 7:
      return walk_trees<7>(tables, probes, packet, best);
    default:
      return walk_trees<8>(tables, probes, packet, best);
  }
}

}  // namespace keel::firewall
