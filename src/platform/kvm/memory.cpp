#include "memory.hpp"

#include <cstring>

#include "arch/x86_64/paging.hpp"
#include "kernel/page_allocator.hpp"

extern "C" char __image_end[];

namespace keel::kvm {
namespace {

// Below 1 MiB lie the BIOS data, option ROMs and the PVH start info.
constexpr uint64_t low_memory_end = 1ull << 20;

// constinit: filled before musl runs the global constructors.
constinit kernel::PageAllocator pages;
constinit uint64_t total = 0;
constinit uint64_t low_ram_end = 0;  // end of the highest RAM below 4 GiB

void add_usable(uint64_t start, uint64_t end) {
  uint64_t image_end = reinterpret_cast<uint64_t>(__image_end);
  if (start < image_end) start = image_end;  // the image itself sits at 1 MiB
  if (start < low_memory_end) start = low_memory_end;
  if (end > arch::paging::mapped_limit) end = arch::paging::mapped_limit;
  if (start >= end) return;
  if (end > low_ram_end) low_ram_end = end;
  if (pages.add(start, end - start)) total += end - start;
}

}  // namespace

bool init_memory(const pvh::StartInfo& info) {
  if (info.version >= 1 && info.memmap_paddr != 0) {
    auto* map = reinterpret_cast<const pvh::MemmapEntry*>(info.memmap_paddr);
    for (uint32_t i = 0; i < info.memmap_entries; ++i) {
      if (map[i].type == pvh::MemoryType::ram) add_usable(map[i].addr, map[i].addr + map[i].size);
    }
  }
  return total > 0;
}

uint64_t allocate_pages(uint64_t size) {
  uint64_t address = pages.allocate(size);
  uint64_t whole_pages = (size + 4095) & ~uint64_t(4095);
  if (address != 0) std::memset(reinterpret_cast<void*>(address), 0, whole_pages);
  return address;
}

bool free_pages(uint64_t address, uint64_t size) { return pages.free(address, size); }
uint64_t free_memory() { return pages.free_bytes(); }
uint64_t total_memory() { return total; }
uint64_t ram_end_below_4g() { return low_ram_end; }

}  // namespace keel::kvm
