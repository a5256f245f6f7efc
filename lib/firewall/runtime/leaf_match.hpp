#pragma once
// Tests of a tree leaf's octets (tables.hpp: LeafOctet): four lanes at a time with SSE2, part of
// every x86-64 CPU, or eight with AVX2 where the CPU has it (tree_lookup_avx2.cpp).
#include <emmintrin.h>

#include <bit>

#include "keel/firewall/packet.hpp"
#include "keel/firewall/tables.hpp"

namespace keel::firewall {

// A packet's tuple fields, each broadcast to the four lanes of a quad.
struct PacketLanes {
  explicit PacketLanes(const Packet& p)
      : saddr(_mm_set1_epi32(static_cast<int>(p.saddr))),
        daddr(_mm_set1_epi32(static_cast<int>(p.daddr))),
        sport(_mm_set1_epi32(static_cast<int>(range_key(p.sport, p.sport)))),
        dport(_mm_set1_epi32(static_cast<int>(range_key(p.dport, p.dport)))),
        proto(_mm_set1_epi32(static_cast<int>(range_key(p.proto, p.proto)))) {}
  __m128i saddr, daddr, sport, dport, proto;
};

// Bit i set when lane i of quad `half` (lanes 0-3 or 4-7) of `octet` matches.
inline uint32_t quad_matches(const LeafOctet& octet, uint32_t half, const PacketLanes& p) {
  const uint32_t at = 4 * half;
  const auto field = [&](const uint32_t(&lane)[8]) {
    return _mm_load_si128(reinterpret_cast<const __m128i*>(lane + at));
  };
  const __m128i source =
      _mm_cmpeq_epi32(_mm_and_si128(p.saddr, field(octet.saddr_mask)), field(octet.saddr));
  const __m128i destination =
      _mm_cmpeq_epi32(_mm_and_si128(p.daddr, field(octet.daddr_mask)), field(octet.daddr));
  const __m128i addresses = _mm_and_si128(source, destination);
  // A range half greater than the packet's half is a bound the packet misses (range_key).
  const __m128i outside = _mm_or_si128(_mm_or_si128(_mm_cmpgt_epi16(field(octet.sport), p.sport),
                                                    _mm_cmpgt_epi16(field(octet.dport), p.dport)),
                                       _mm_cmpgt_epi16(field(octet.proto), p.proto));
  const __m128i match = _mm_and_si128(addresses, _mm_cmpeq_epi32(outside, _mm_setzero_si128()));
  return static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(match)));
}

// The rule of the first lane set in `bits` (lanes of `octet`), or `best` if none is.
inline uint32_t first_matching(const LeafOctet& octet, uint32_t bits, uint32_t best) {
  const uint32_t rule = octet.rule[std::countr_zero(bits | 0x80u) & 7];
  // Selected with a mask: as a conditional GCC branches, and that branch mispredicts.
  const uint32_t take = 0u - static_cast<uint32_t>(bits != 0);
  return (rule & take) | (best & ~take);
}

// The lowest rule matching among `count` octets (lanes in rule order across them), or kNoRule.
inline uint32_t leaf_match(const LeafOctet* octets, uint32_t count, const PacketLanes& p) {
  uint32_t best = kNoRule;
  for (uint32_t o = count; o-- > 0;) {  // from the last octet, so the first matching lane wins
    const LeafOctet& octet = octets[o];
    best = first_matching(octet, quad_matches(octet, 0, p) | quad_matches(octet, 1, p) << 4, best);
  }
  return best;
}

// The same with AVX2, a whole octet per step (tree_lookup_avx2.cpp); only where cpu_has_avx2().
uint32_t leaf_match_avx2(const LeafOctet* octets, uint32_t count, const Packet& packet);

}  // namespace keel::firewall
