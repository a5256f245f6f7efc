// The CPU's random number instructions (Intel's Digital Random Number
// Generator Software Implementation Guide, 2.1; AMD has them too): RDSEED
// reads the entropy source's conditioned output (a seed), RDRAND a DRBG
// the hardware reseeds. Either may fail transiently (carry clear).
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel::kvm::cpu_random {

// Looks once for CPUID leaf 7 EBX bit 18 (RDSEED) and leaf 1 ECX bit 30
// (RDRAND); an instruction that answers the same value twice (AMD parts
// returning all ones after a resume) is not trusted. Needs no C library:
// called from kernel_entry.
void detect();
bool has_rdseed();
bool has_rdrand();

// Fills `size` bytes; false when the instruction kept failing (after the
// guide's retries) or the CPU lacks it. Nothing partial is used.
bool rdseed_bytes(void* out, std::size_t size);
bool rdrand_bytes(void* out, std::size_t size);

}  // namespace keel::kvm::cpu_random
