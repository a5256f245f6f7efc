// Lookups in the image's .keel_symbols tables (see tools/keel-symbols).
#pragma once
#include <cstdint>

namespace keel::kvm {

// Whether a hlt instruction starts at `address` in the image's text.
bool is_halt_instruction(uint64_t address);

}  // namespace keel::kvm
