// Physical memory from the boot memory map, handed out to mmap (and so to
// musl's malloc) by the kernel's PageAllocator.
#pragma once
#include <cstdint>

#include "pvh.hpp"

namespace keel::kvm {

bool init_memory(const pvh::StartInfo& info);
// Zeroed, page-aligned memory, as anonymous mmap returns; 0 when none is left.
uint64_t allocate_pages(uint64_t size);
bool free_pages(uint64_t address, uint64_t size);
uint64_t free_memory();
uint64_t total_memory();
uint64_t ram_end_below_4g();

}  // namespace keel::kvm
