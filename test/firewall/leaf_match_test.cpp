// The SSE2 and AVX2 leaf tests (runtime/leaf_match.hpp) against the scalar entry matcher, on
// random entries biased to range edges (0, 65535, prefix lengths 0 and 32) and leaves of 0-40
// entries, so partly filled, full and several octets are all taken, and leaves past the three
// octets the AVX2 path tests without a loop. Fixed seed.
#include "runtime/leaf_match.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "compile/builder_parts.hpp"
#include "keel/firewall/classifier.hpp"
#include "runtime/entry_match.hpp"

namespace keel::firewall::testing {
namespace {
constexpr uint32_t kSeed = 7;
constexpr uint32_t kMaxLeafEntries = 41;  // leaves of 0-40 entries: up to five octets
constexpr size_t kFixedOctets = 3;        // the AVX2 path's loop-free leaf size

uint16_t edge_value(std::mt19937& rng, uint32_t max) {
  static constexpr uint32_t kEdges[] = {0, 1, 79, 80, 81, 1023, 1024, 32767, 32768, 65534, 65535};
  uint32_t v = rng() % 3 ? kEdges[rng() % std::size(kEdges)] : rng();
  return static_cast<uint16_t>(v % (max + 1));
}

TupleEntry random_entry(std::mt19937& rng, uint32_t rule) {
  TupleEntry e;
  e.rule = rule;
  static constexpr uint8_t kLengths[] = {0, 1, 8, 16, 24, 31, 32};
  e.saddr_length = kLengths[rng() % std::size(kLengths)];
  e.daddr_length = kLengths[rng() % std::size(kLengths)];
  e.saddr = (0x0A000000u | (rng() & 0x3)) &
            prefix_mask(e.saddr_length);  // few distinct addresses: matches happen
  e.daddr = (0xC0A80000u | (rng() & 0x3)) & prefix_mask(e.daddr_length);
  auto range = [&](uint16_t& lo, uint16_t& hi, uint32_t max) {
    lo = edge_value(rng, max), hi = edge_value(rng, max);
    if (lo > hi) std::swap(lo, hi);
  };
  range(e.sport_lo, e.sport_hi, 65535);
  range(e.dport_lo, e.dport_hi, 65535);
  uint16_t plo = 0, phi = 0;
  range(plo, phi, 255);
  e.proto_lo = static_cast<uint8_t>(plo), e.proto_hi = static_cast<uint8_t>(phi);
  return e;
}

std::vector<LeafOctet> octets_of(const std::vector<TupleEntry>& entries) {
  std::vector<LeafOctet> octets;
  for (size_t i = 0; i < entries.size(); i += 8)
    octets.push_back(
        leaf_octet(std::span(entries).subspan(i, std::min<size_t>(8, entries.size() - i))));
  return octets;
}

// Both paths against the scalar match; the AVX2 one only where the CPU has it.
void expect_agreement(bool avx2) {
  if (avx2 && !cpu_has_avx2())
    GTEST_SKIP() << "this CPU has no AVX2 (or the OS does not enable it)";
  std::mt19937 rng(kSeed);
  int matched = 0, long_leaves = 0, very_long_leaves = 0;
  for (int leaf = 0; leaf < 3000; ++leaf) {
    std::vector<TupleEntry> entries;
    uint32_t rule = rng() % 100;
    for (uint32_t n = rng() % kMaxLeafEntries; n > 0; --n)
      entries.push_back(random_entry(rng, rule += rng() % 3));
    const std::vector<LeafOctet> octets = octets_of(entries);
    long_leaves += octets.size() > 1;
    very_long_leaves += octets.size() > kFixedOctets;
    for (int p = 0; p < 40; ++p) {
      Packet packet;
      packet.saddr = 0x0A000000u | (rng() & 0x3) | (rng() % 4 ? 0 : rng());
      packet.daddr = 0xC0A80000u | (rng() & 0x3) | (rng() % 4 ? 0 : rng());
      packet.sport = edge_value(rng, 65535);
      packet.dport = edge_value(rng, 65535);
      packet.proto = static_cast<uint8_t>(edge_value(rng, 255));
      uint32_t want = kNoRule;
      for (const TupleEntry& e : entries)
        if (entry_matches(e, packet)) want = std::min(want, e.rule);
      const auto count = static_cast<uint32_t>(octets.size());
      const uint32_t got = avx2 ? leaf_match_avx2(octets.data(), count, packet)
                                : leaf_match(octets.data(), count, PacketLanes(packet));
      ASSERT_EQ(got, want) << "leaf " << leaf << " of " << entries.size() << " entries, packet "
                           << p;
      matched += want != kNoRule;
    }
  }
  EXPECT_GT(matched, 1000) << "too few matches to exercise the lane selection";
  EXPECT_GT(long_leaves, 1000) << "too few leaves of more than one octet";
  EXPECT_GT(very_long_leaves, 500) << "too few leaves of more than three octets";
}

TEST(LeafMatch, Sse2AgreesWithScalarEntryMatch) { expect_agreement(false); }
TEST(LeafMatch, Avx2AgreesWithScalarEntryMatch) { expect_agreement(true); }

TEST(LeafMatch, RangeKeyBoundsAreInclusive) {
  for (uint32_t lo : {0u, 1u, 80u, 32767u, 32768u, 65535u}) {
    for (uint32_t hi : {lo, lo + 1, 32768u, 65535u}) {
      if (hi < lo || hi > 65535) continue;
      TupleEntry e;
      e.rule = 5;
      e.sport_lo = static_cast<uint16_t>(lo), e.sport_hi = static_cast<uint16_t>(hi);
      e.dport_hi = 65535, e.proto_hi = 255;
      const LeafOctet octet = leaf_octet(std::span(&e, 1));
      for (int64_t v : {int64_t{lo} - 1, int64_t{lo}, int64_t{hi}, int64_t{hi} + 1}) {
        if (v < 0 || v > 65535) continue;
        Packet packet;
        packet.sport = static_cast<uint16_t>(v);
        const bool inside = v >= lo && v <= hi;
        EXPECT_EQ(leaf_match(&octet, 1, PacketLanes(packet)), inside ? 5u : kNoRule)
            << lo << "-" << hi << " at " << v;
      }
    }
  }
}

}  // namespace
}  // namespace keel::firewall::testing
