// The final page tables: identity map of the first 4 GiB, with the image in
// 4 KiB pages by permission (text RX, rodata R, data RW, all else NX), page 0
// and the stack guard unmapped, and everything above RAM uncached.
#pragma once
#include <cstdint>

namespace keel::arch::paging {

inline constexpr uint64_t mapped_limit = 4ull << 30;

// Everything from `ram_end` (the end of RAM below 4 GiB) up is device
// memory: the PCI hole starts there on pc and q35 alike.
void init(uint64_t ram_end);

}  // namespace keel::arch::paging
