// Hooks into interrupt dispatch (interrupts.cpp).
#pragma once

#include "cpu_state.hpp"

namespace keel::arch {

// Called with the interrupted registers on every device and timer interrupt
// (not on CPU exceptions), in interrupt context: it must not allocate, print
// or take long. For sampling profilers and for tests that need to know where
// interrupts land. nullptr (the default) turns it off.
using InterruptSampler = void (*)(const kernel::CpuState& interrupted);
void set_interrupt_sampler(InterruptSampler sampler);

}  // namespace keel::arch
