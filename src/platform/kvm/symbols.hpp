// Lookups in the image's .keel_symbols tables (see tools/keel-symbols).
#pragma once
#include <cstdint>

namespace keel::kvm {

// Whether one of the C library's crash traps (an int3 that was musl's
// a_crash hlt, tools/keel-crash-traps) is at `address` in the image's text.
bool is_crash_trap(uint64_t address);

// The start of the function holding `address`, or 0 when unknown: the
// lookup of platform::symbolize without decoding the name (the profiler
// counts thousands of samples by it).
uint64_t function_start(uint64_t address);

}  // namespace keel::kvm
