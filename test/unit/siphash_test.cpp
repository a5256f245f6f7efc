#include "util/siphash.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

keel::util::SipKey reference_key() {
  // The paper's key: bytes 00 01 02 ... 0f, read as two little-endian words.
  return {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
}

std::vector<uint8_t> counting_bytes(std::size_t n) {
  std::vector<uint8_t> m(n);
  for (std::size_t i = 0; i < n; ++i) m[i] = uint8_t(i);
  return m;
}

uint64_t siphash24(const std::vector<uint8_t>& m) {
  return keel::util::siphash<2, 4>(reference_key(), m.data(), m.size());
}

}  // namespace

// Test vectors of the reference implementation (SipHash-2-4, messages 00 01 ...).
TEST(SipHash, ReferenceVectors) {
  EXPECT_EQ(siphash24(counting_bytes(0)), 0x726fdb47dd0e0e31ull);
  EXPECT_EQ(siphash24(counting_bytes(1)), 0x74f839c593dc67fdull);
  EXPECT_EQ(siphash24(counting_bytes(15)), 0xa129ca6149be45e5ull);  // the paper's worked example
}

TEST(SipHash, KeyChangesEveryOutput) {
  auto m = counting_bytes(16);
  keel::util::SipKey a = reference_key(), b = a;
  b.k1 ^= 1;
  EXPECT_NE(keel::util::siphash13(a, m.data(), m.size()),
            keel::util::siphash13(b, m.data(), m.size()));
}
