// The final page tables: identity map of the first 4 GiB, with the image in
// 4 KiB pages by permission (text RX, rodata R, data RW, all else NX), page 0
// and the stack guard unmapped, and the MMIO hole uncached.
#pragma once
#include <cstdint>

namespace keel::arch::paging {

inline constexpr uint64_t mapped_limit = 4ull << 30;

void init();

}  // namespace keel::arch::paging
