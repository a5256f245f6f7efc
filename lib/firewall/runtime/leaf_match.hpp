#pragma once
// Tests of a tree leaf's quads (tables.hpp: LeafQuad) with SSE2, part of every x86-64 CPU.
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

// Bit i set when lane i of `quad` matches.
inline uint32_t quad_matches(const LeafQuad& quad, const PacketLanes& p) {
  const auto field = [&](const uint32_t (&lane)[4]) { return _mm_load_si128(reinterpret_cast<const __m128i*>(lane)); };
  const __m128i source = _mm_cmpeq_epi32(_mm_and_si128(p.saddr, field(quad.saddr_mask)), field(quad.saddr));
  const __m128i destination = _mm_cmpeq_epi32(_mm_and_si128(p.daddr, field(quad.daddr_mask)), field(quad.daddr));
  const __m128i addresses = _mm_and_si128(source, destination);
  // A range half greater than the packet's half is a bound the packet misses (range_key).
  const __m128i outside = _mm_or_si128(
      _mm_or_si128(_mm_cmpgt_epi16(field(quad.sport), p.sport), _mm_cmpgt_epi16(field(quad.dport), p.dport)),
      _mm_cmpgt_epi16(field(quad.proto), p.proto));
  const __m128i match = _mm_and_si128(addresses, _mm_cmpeq_epi32(outside, _mm_setzero_si128()));
  return static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(match)));
}

// The lowest rule matching among `count` quads (lanes in rule order across the quads), or kNoRule.
inline uint32_t leaf_match(const LeafQuad* quads, uint32_t count, const PacketLanes& p) {
  uint32_t best = kNoRule;
  for (uint32_t q = count; q-- > 0;) {  // from the last quad, so the first matching lane wins
    const uint32_t bits = quad_matches(quads[q], p);
    const uint32_t rule = quads[q].rule[std::countr_zero(bits | 8u) & 3];
    // Selected with a mask: as a conditional GCC branches, and that branch mispredicts.
    const uint32_t take = 0u - static_cast<uint32_t>(bits != 0);
    best = (rule & take) | (best & ~take);
  }
  return best;
}

}  // namespace keel::firewall
