#include "cpu_random.hpp"

#include <cstring>

#include "arch/x86_64/cpu.hpp"

namespace keel::kvm::cpu_random {
namespace {

constexpr uint32_t cpuid_features = 1, cpuid_extended_features = 7;
constexpr uint32_t leaf1_ecx_rdrand = 1u << 30;
constexpr uint32_t leaf7_ebx_rdseed = 1u << 18;
// DRNG guide 5.2.1: RDRAND failing ten times in a row means the DRNG is
// broken, not busy.
constexpr int rdrand_retries = 10;
// DRNG guide 5.3.1: RDSEED may run dry while the entropy source refills;
// retry with PAUSE in between. Bounded so a broken part cannot hang boot.
constexpr int rdseed_retries = 1000;

bool rdseed_usable = false, rdrand_usable = false;

bool rdrand64(uint64_t& value) {
  for (int i = 0; i < rdrand_retries; ++i) {
    bool ok;
    asm volatile("rdrand %0" : "=r"(value), "=@ccc"(ok));
    if (ok) return true;
  }
  return false;
}

bool rdseed64(uint64_t& value) {
  for (int i = 0; i < rdseed_retries; ++i) {
    bool ok;
    asm volatile("rdseed %0" : "=r"(value), "=@ccc"(ok));
    if (ok) return true;
    arch::pause();
  }
  return false;
}

// Two draws that agree (or fail) mean the instruction is unusable.
bool answers_sanely(bool (*draw)(uint64_t&)) {
  uint64_t a, b;
  return draw(a) && draw(b) && a != b;
}

bool fill(bool available, bool (*draw)(uint64_t&), void* out, std::size_t size) {
  if (!available) return false;
  auto* bytes = static_cast<uint8_t*>(out);
  for (std::size_t i = 0; i < size; i += sizeof(uint64_t)) {
    uint64_t value;
    if (!draw(value)) return false;
    std::size_t n = size - i < sizeof value ? size - i : sizeof value;
    std::memcpy(bytes + i, &value, n);
  }
  return true;
}

}  // namespace

void detect() {
  rdseed_usable = arch::cpuid(0).eax >= cpuid_extended_features &&
                  (arch::cpuid(cpuid_extended_features).ebx & leaf7_ebx_rdseed) &&
                  answers_sanely(rdseed64);
  rdrand_usable = (arch::cpuid(cpuid_features).ecx & leaf1_ecx_rdrand) && answers_sanely(rdrand64);
}

bool has_rdseed() { return rdseed_usable; }
bool has_rdrand() { return rdrand_usable; }

bool rdseed_bytes(void* out, std::size_t size) { return fill(has_rdseed(), rdseed64, out, size); }
bool rdrand_bytes(void* out, std::size_t size) { return fill(has_rdrand(), rdrand64, out, size); }

}  // namespace keel::kvm::cpu_random
