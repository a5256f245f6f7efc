#pragma once
// Tests of a tree leaf's quads (tables.hpp: LeafQuad) with SSE2, part of every x86-64 CPU.
#include <emmintrin.h>

#include <algorithm>
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
  const __m128i addresses = _mm_and_si128(_mm_cmpeq_epi32(_mm_and_si128(p.saddr, field(quad.saddr_mask)), field(quad.saddr)),
                                          _mm_cmpeq_epi32(_mm_and_si128(p.daddr, field(quad.daddr_mask)), field(quad.daddr)));
  // A range half greater than the packet's half is a bound the packet misses (range_key).
  const __m128i outside = _mm_or_si128(
      _mm_or_si128(_mm_cmpgt_epi16(field(quad.sport), p.sport), _mm_cmpgt_epi16(field(quad.dport), p.dport)),
      _mm_cmpgt_epi16(field(quad.proto), p.proto));
  const __m128i match = _mm_and_si128(addresses, _mm_cmpeq_epi32(outside, _mm_setzero_si128()));
  return static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(match)));
}

// Stands in for the quads a leaf does not have, so every leaf tests two without a branch.
inline constexpr LeafQuad kNoMatchQuad = {
    {1, 1, 1, 1}, {}, {}, {},
    {range_key(0, 0xFFFF), range_key(0, 0xFFFF), range_key(0, 0xFFFF), range_key(0, 0xFFFF)},
    {range_key(0, 0xFFFF), range_key(0, 0xFFFF), range_key(0, 0xFFFF), range_key(0, 0xFFFF)},
    {range_key(0, 0xFFFF), range_key(0, 0xFFFF), range_key(0, 0xFFFF), range_key(0, 0xFFFF)},
    {kNoRule, kNoRule, kNoRule, kNoRule}};

// The lowest rule matching among `count` quads (lanes in rule order), or kNoRule.
inline uint32_t leaf_match(const LeafQuad* quads, uint32_t count, const PacketLanes& p) {
  const LeafQuad* first = count > 0 ? quads : &kNoMatchQuad;
  const LeafQuad* second = count > 1 ? quads + 1 : &kNoMatchQuad;
  const uint32_t bits = quad_matches(*first, p) | quad_matches(*second, p) << 4;
  const uint32_t lane = static_cast<uint32_t>(std::countr_zero(bits | 0x100u));  // 8: none
  const uint32_t rule = (lane < 4 ? first : second)->rule[lane & 3];
  uint32_t best = lane < 8 ? rule : kNoRule;
  // Leaves the builder could not split further hold more (rare): tested one quad at a time.
  for (uint32_t q = 2; q < count; ++q) {
    const uint32_t more = quad_matches(quads[q], p);
    if (more) best = std::min(best, quads[q].rule[std::countr_zero(more)]);
  }
  return best;
}

}  // namespace keel::firewall
