// Interrupts that land right behind the C library's crash traps must not
// stop the guest. musl's allocator checks compile to `jcc L; hlt; L:` (the
// hlt now an int3 trap): L is the normal path, and under TCG interrupts are
// taken where translated blocks start, which jump targets are. Keel once
// read such an interrupt as "a hlt ran" and panicked.
//
// The service churns the allocator while the APIC timer fires every few
// microseconds, and counts (through the interrupt sampler) the interrupts
// whose return address is just past a crash trap. It exits 0 once enough
// have landed there and it still runs; 1 if too few landed in the time.
#include <cstdio>
#include <cstdlib>
#include <os>

#include "arch/x86_64/apic.hpp"
#include "arch/x86_64/interrupts.hpp"
#include "kernel/platform.hpp"
#include "platform/kvm/symbols.hpp"

namespace {

constexpr uint64_t wanted_landings = 20;
constexpr uint64_t interrupt_every_ns = 3'000;
constexpr uint64_t give_up_after_ns = 60'000'000'000;
constexpr int blocks = 48;

volatile uint64_t interrupts = 0;
volatile uint64_t landed_behind_trap = 0;

void sample(const keel::kernel::CpuState& s) {
  interrupts = interrupts + 1;
  if (keel::kvm::is_crash_trap(s.rip - 1)) landed_behind_trap = landed_behind_trap + 1;
}

// Allocates blocks of assorted sizes and frees them out of order: every
// free() runs musl's get_meta() checks.
void churn(uint32_t& seed) {
  void* block[blocks];
  for (int i = 0; i < blocks; ++i) {
    seed = seed * 1103515245u + 12345u;
    block[i] = std::malloc(16 + (seed >> 16) % 600);
  }
  for (int i = 0; i < blocks; ++i) std::free(block[(i * 7) % blocks]);
}

}  // namespace

void Service::start() {
  keel::arch::set_interrupt_sampler(sample);
  uint64_t start = keel::platform::monotonic_ns();
  uint32_t seed = 1;
  while (landed_behind_trap < wanted_landings &&
         keel::platform::monotonic_ns() - start < give_up_after_ns) {
    keel::arch::apic::arm_timer(keel::platform::monotonic_ns() + interrupt_every_ns);
    churn(seed);
  }
  keel::arch::set_interrupt_sampler(nullptr);
  std::printf("%llu of %llu interrupts landed just past a crash trap; still running\n",
              (unsigned long long)landed_behind_trap, (unsigned long long)interrupts);
  os::shutdown(landed_behind_trap >= wanted_landings ? 0 : 1);
}
