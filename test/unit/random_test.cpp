// The kernel's ChaCha20 block function against RFC 8439's vectors, and the
// fast-key-erasure generator built on it (docs/decisions/0104).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernel/random/chacha20.hpp"
#include "kernel/random/generator.hpp"

using namespace keel::random;

namespace {

std::vector<uint8_t> hex(const char* text) {
  std::vector<uint8_t> bytes;
  for (const char* p = text; p[0] && p[1]; p += 2) {
    bytes.push_back(uint8_t(std::stoi(std::string(p, 2), nullptr, 16)));
  }
  return bytes;
}

std::vector<uint8_t> block(const uint8_t (&key)[32], uint32_t counter,
                           const uint8_t (&nonce)[12] = {}) {
  uint8_t out[64];
  chacha20_block(key, counter, nonce, out);
  return {out, out + 64};
}

void copy_key(const uint8_t* from, uint8_t (&to)[32]) { std::memcpy(to, from, 32); }

bool contains(const std::vector<uint8_t>& haystack, const uint8_t* needle, std::size_t n) {
  return std::search(haystack.begin(), haystack.end(), needle, needle + n) != haystack.end();
}

}  // namespace

TEST(ChaCha20, Rfc8439BlockFunctionVector) {
  // RFC 8439, 2.3.2.
  uint8_t key[32];
  for (int i = 0; i < 32; ++i) key[i] = uint8_t(i);
  const uint8_t nonce[12] = {0, 0, 0, 0x09, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  EXPECT_EQ(block(key, 1, nonce),
            hex("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"));
}

TEST(ChaCha20, Rfc8439AppendixA1ZeroKeyVectors) {
  const uint8_t zero[32] = {};
  EXPECT_EQ(block(zero, 0),
            hex("76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
                "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"));
  EXPECT_EQ(block(zero, 1),
            hex("9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
                "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"));
}

TEST(Generator, ErasesItsKeyBeforeAnsweringAShortRequest) {
  Generator g;
  g.mix("seed", 4);
  uint8_t old_key[32];
  copy_key(g.key(), old_key);
  std::vector<uint8_t> expected = block(old_key, 0);

  uint8_t out[20];
  g.generate(out, sizeof out);
  // The new key is the first half of the old key's block; the output is
  // from the second half, so it never holds the key that follows.
  EXPECT_TRUE(std::equal(g.key(), g.key() + 32, expected.begin()));
  EXPECT_TRUE(std::equal(out, out + sizeof out, expected.begin() + 32));
  EXPECT_FALSE(std::equal(g.key(), g.key() + 32, old_key));
}

TEST(Generator, LongRequestsComeFromAStreamUnderAFreshKey) {
  Generator g;
  g.mix("seed", 4);
  uint8_t old_key[32], stream_key[32];
  copy_key(g.key(), old_key);
  std::vector<uint8_t> first = block(old_key, 0);
  copy_key(first.data() + 32, stream_key);

  std::vector<uint8_t> out(200);
  g.generate(out.data(), out.size());
  std::vector<uint8_t> expected;
  for (uint32_t c = 0; expected.size() < out.size(); ++c) {
    std::vector<uint8_t> b = block(stream_key, c);
    expected.insert(expected.end(), b.begin(), b.end());
  }
  expected.resize(out.size());
  EXPECT_EQ(out, expected);
  EXPECT_TRUE(std::equal(g.key(), g.key() + 32, first.begin()));
  EXPECT_FALSE(contains(out, g.key(), 32));
  EXPECT_FALSE(contains(out, old_key, 32));
}

TEST(Generator, StateAfterARequestDoesNotReproduceIt) {
  Generator g;
  g.mix("seed", 4);
  std::vector<uint8_t> a(64), b(64);
  g.generate(a.data(), a.size());
  Generator later = g;  // everything an attacker reading memory now would see
  later.generate(b.data(), b.size());
  EXPECT_NE(a, b);
  g.generate(b.data(), b.size());
  EXPECT_NE(a, b);
}

TEST(Generator, SameSeedSameStreamDifferentSeedDifferentStream) {
  Generator x, y, z;
  x.mix("one seed", 8);
  y.mix("one seed", 8);
  z.mix("one seee", 8);
  std::vector<uint8_t> bx(48), by(48), bz(48);
  x.generate(bx.data(), bx.size());
  y.generate(by.data(), by.size());
  z.generate(bz.data(), bz.size());
  EXPECT_EQ(bx, by);
  EXPECT_NE(bx, bz);
}

TEST(Generator, MixKeepsWhatTheKeyHadAndCountsLength) {
  Generator a, b, c;
  a.mix("secret", 6);
  b = a;
  a.mix("ab", 2);
  b.mix("ab\0", 3);  // a trailing zero is a different seed
  EXPECT_FALSE(std::equal(a.key(), a.key() + 32, b.key()));
  c.mix("ab", 2);  // same input, different earlier key
  EXPECT_FALSE(std::equal(a.key(), a.key() + 32, c.key()));
}

TEST(Generator, MixCoversEveryChunkOfLongMaterial) {
  std::vector<uint8_t> material(100, 0x55), changed = material;
  changed[99] ^= 1;  // in the last, partial chunk
  Generator a, b;
  a.mix(material.data(), material.size());
  b.mix(changed.data(), changed.size());
  EXPECT_FALSE(std::equal(a.key(), a.key() + 32, b.key()));
}

TEST(Generator, CountsBytesSinceTheLastMix) {
  Generator g;
  uint8_t out[100];
  g.generate(out, sizeof out);
  g.generate(out, 10);
  EXPECT_EQ(g.generated_since_mix(), 110u);
  g.mix(out, 32);
  EXPECT_EQ(g.generated_since_mix(), 0u);
}
