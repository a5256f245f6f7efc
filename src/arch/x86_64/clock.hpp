// Time from the TSC, its rate taken from kvmclock (KVM), or measured against
// the PIT (TCG). Wall-clock time from kvmclock or the CMOS RTC.
#pragma once
#include <cstdint>

namespace keel::arch::clock {

enum class Source : uint8_t { kvmclock, pit_calibrated, cpuid };

void init();
uint64_t monotonic_ns();  // since init()
uint64_t tsc_at(uint64_t monotonic_ns);
uint64_t wall_clock_ns();
uint64_t tsc_hz();
Source source();

}  // namespace keel::arch::clock
