// The PVH boot ABI's start info (xen/include/public/arch-x86/hvm/start_info.h).
#pragma once
#include <cstdint>

namespace keel::pvh {

inline constexpr uint32_t start_info_magic = 0x336ec578;

struct StartInfo {
  uint32_t magic;
  uint32_t version;
  uint32_t flags;
  uint32_t nr_modules;
  uint64_t modlist_paddr;
  uint64_t cmdline_paddr;
  uint64_t rsdp_paddr;
  uint64_t memmap_paddr;  // version >= 1
  uint32_t memmap_entries;
  uint32_t reserved;
};

enum class MemoryType : uint32_t { ram = 1, reserved = 2, acpi = 3, nvs = 4, unusable = 5 };

struct MemmapEntry {
  uint64_t addr;
  uint64_t size;
  MemoryType type;
  uint32_t reserved;
};

}  // namespace keel::pvh
