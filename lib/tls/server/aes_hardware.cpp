// aes_hardware.hpp, from CPUID (Intel SDM vol. 2A, CPUID; the hypervisor leaves 0x4000000x
// as KVM and QEMU define them).
#include "aes_hardware.hpp"

#include <cpuid.h>

#include <cstring>

namespace keel::tls {
namespace {

constexpr unsigned kPclmulqdq = 1u << 1;    // CPUID.1:ECX
constexpr unsigned kAesNi = 1u << 25;       // CPUID.1:ECX
constexpr unsigned kHypervisor = 1u << 31;  // CPUID.1:ECX: the leaves below exist
constexpr unsigned kHypervisorLeaf = 0x40000000;

bool under_tcg() {
  unsigned eax, ebx, ecx, edx;
  __cpuid(kHypervisorLeaf, eax, ebx, ecx, edx);
  char vendor[12];
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &ecx, 4);
  std::memcpy(vendor + 8, &edx, 4);
  return std::memcmp(vendor, "TCGTCGTCGTCG", sizeof vendor) == 0;
}

}  // namespace

bool aes_gcm_in_hardware() {
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  if ((ecx & (kAesNi | kPclmulqdq)) != (kAesNi | kPclmulqdq)) return false;
  return (ecx & kHypervisor) == 0 || !under_tcg();
}

}  // namespace keel::tls
