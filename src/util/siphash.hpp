// SipHash (Aumasson and Bernstein, 2012): a keyed hash for tables whose keys
// an attacker picks (addresses, ports, fragment ids). With a secret key,
// nobody can aim many keys at one bucket. SipHash-1-3 (one compression,
// three finalization rounds) is what tables use; 2-4 is the paper's
// reference variant, kept for its test vectors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace keel::util {

struct SipKey {
  uint64_t k0 = 0, k1 = 0;
};

namespace siphash_detail {

inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

struct State {
  uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
};

}  // namespace siphash_detail

template <int CompressionRounds, int FinalizationRounds>
uint64_t siphash(const SipKey& key, const void* data, std::size_t len) {
  siphash_detail::State s{key.k0 ^ 0x736f6d6570736575ull, key.k1 ^ 0x646f72616e646f6dull,
                          key.k0 ^ 0x6c7967656e657261ull, key.k1 ^ 0x7465646279746573ull};
  auto* p = static_cast<const uint8_t*>(data);
  auto compress = [&s](uint64_t m) {
    s.v3 ^= m;
    for (int i = 0; i < CompressionRounds; ++i) s.round();
    s.v0 ^= m;
  };
  std::size_t whole = len & ~std::size_t(7);
  for (std::size_t i = 0; i < whole; i += 8) {
    uint64_t m;
    std::memcpy(&m, p + i, 8);  // little-endian words (x86-64)
    compress(m);
  }
  uint64_t last = uint64_t(len & 0xff) << 56;
  for (std::size_t i = 0; i < (len & 7); ++i) last |= uint64_t(p[whole + i]) << (8 * i);
  compress(last);
  s.v2 ^= 0xff;
  for (int i = 0; i < FinalizationRounds; ++i) s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

inline uint64_t siphash13(const SipKey& key, const void* data, std::size_t len) {
  return siphash<1, 3>(key, data, len);
}

}  // namespace keel::util
