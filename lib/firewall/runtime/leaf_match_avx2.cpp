// The AVX2 leaf test: the SSE2 one of leaf_match.hpp on eight lanes. Compiled for AVX2 through
// a function attribute (the rest of the runtime stays baseline x86-64) and called only when
// cpu_has_avx2() says the CPU and the OS (XCR0) support it.
#include <cpuid.h>
#include <immintrin.h>

#include "keel/firewall/classifier.hpp"
#include "runtime/leaf_match.hpp"

namespace keel::firewall {

namespace {
__attribute__((target("avx2"))) inline __m256i field(const uint32_t (&lanes)[8]) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
}
}  // namespace

bool cpu_has_avx2() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX)) return false;
  uint32_t xcr0 = 0, xcr0_high = 0;
  asm volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  if ((xcr0 & 6) != 6) return false;  // the OS saves SSE and AVX state
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2);
}

__attribute__((target("avx2"))) uint32_t leaf_match_avx2(const LeafOctet* octets, uint32_t count,
                                                          const Packet& packet) {
  const __m256i saddr = _mm256_set1_epi32(static_cast<int>(packet.saddr));
  const __m256i daddr = _mm256_set1_epi32(static_cast<int>(packet.daddr));
  const __m256i sport = _mm256_set1_epi32(static_cast<int>(range_key(packet.sport, packet.sport)));
  const __m256i dport = _mm256_set1_epi32(static_cast<int>(range_key(packet.dport, packet.dport)));
  const __m256i proto = _mm256_set1_epi32(static_cast<int>(range_key(packet.proto, packet.proto)));
  uint32_t best = kNoRule;
  for (uint32_t o = count; o-- > 0;) {  // from the last octet: the first matching lane wins
    const LeafOctet& octet = octets[o];
    const __m256i source = _mm256_cmpeq_epi32(_mm256_and_si256(saddr, field(octet.saddr_mask)), field(octet.saddr));
    const __m256i destination =
        _mm256_cmpeq_epi32(_mm256_and_si256(daddr, field(octet.daddr_mask)), field(octet.daddr));
    const __m256i outside = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpgt_epi16(field(octet.sport), sport), _mm256_cmpgt_epi16(field(octet.dport), dport)),
        _mm256_cmpgt_epi16(field(octet.proto), proto));
    const __m256i match = _mm256_and_si256(_mm256_and_si256(source, destination),
                                           _mm256_cmpeq_epi32(outside, _mm256_setzero_si256()));
    best = first_matching(octet, static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(match))), best);
  }
  return best;
}

}  // namespace keel::firewall
