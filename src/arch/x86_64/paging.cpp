#include "paging.hpp"

#include "cpu.hpp"

extern "C" uint64_t boot_pd[];  // 4 x 512 entries of 2 MiB, set up by boot.S
extern "C" char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern "C" char __image_end[], boot_stack_guard[], boot_stack_bottom[];

namespace keel::arch::paging {
namespace {

constexpr uint64_t page_size = 4096;
constexpr uint64_t large_page_size = 2ull << 20;
constexpr uint64_t present = 1ull << 0;
constexpr uint64_t writable = 1ull << 1;
constexpr uint64_t write_through = 1ull << 3;
constexpr uint64_t cache_disable = 1ull << 4;
constexpr uint64_t large = 1ull << 7;
constexpr uint64_t no_execute = 1ull << 63;
constexpr uint64_t null_guard_size = 64 * 1024;
// linker.ld asserts that the image fits.
constexpr int max_image_large_pages = 32;

alignas(4096) uint64_t image_tables[max_image_large_pages][512];

// Page-table stores one plain 64-bit move at a time: under nested KVM with
// shadow paging each write to a page table traps and is emulated, and KVM's
// emulator fails on the SSE stores a vectorizing compiler would use.
void set_entry(uint64_t* table, uint64_t index, uint64_t value) {
  *static_cast<volatile uint64_t*>(table + index) = value;
}

uint64_t address(const char* p) { return reinterpret_cast<uint64_t>(p); }

uint64_t small_page_flags(uint64_t a) {
  if (a < null_guard_size) return 0;  // null dereferences, even null->field, fault
  if (a >= address(boot_stack_guard) && a < address(boot_stack_bottom)) return 0;
  if (a >= address(__text_start) - page_size && a < address(__text_end)) {
    return present;  // text (and the ELF headers before it): read and execute
  }
  if (a >= address(__rodata_start) && a < address(__rodata_end)) return present | no_execute;
  return present | writable | no_execute;
}

}  // namespace

void init(uint64_t ram_end) {
  // Without RAM past a 2 MiB page, that page holds no device registers.
  uint64_t mmio_start = (ram_end + large_page_size - 1) & ~(large_page_size - 1);
  uint64_t image_pages = (address(__image_end) + large_page_size - 1) / large_page_size;
  for (uint64_t large_index = 0; large_index < mapped_limit / large_page_size; ++large_index) {
    uint64_t base = large_index * large_page_size;
    if (large_index < image_pages) {
      uint64_t* table = image_tables[large_index];
      for (uint64_t i = 0; i < 512; ++i) {
        uint64_t a = base + i * page_size;
        uint64_t flags = small_page_flags(a);
        set_entry(table, i, flags ? a | flags : 0);
      }
      set_entry(boot_pd, large_index, address(reinterpret_cast<char*>(table)) | present | writable);
    } else {
      uint64_t flags = present | writable | large | no_execute;
      if (base >= mmio_start) flags |= cache_disable | write_through;
      set_entry(boot_pd, large_index, base | flags);
    }
  }
  write_cr3(read_cr3());  // flush the TLB
}

}  // namespace keel::arch::paging
