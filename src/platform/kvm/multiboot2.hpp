// The Multiboot2 boot information (the Multiboot2 specification, version 2.0,
// section 3.6), read into the PVH start info the rest of the kernel takes:
// GRUB 2 loads the image through Multiboot2 from a disk (decision 0113), QEMU
// and Firecracker through PVH (decision 0002). Portable: unit tested on the host.
#pragma once
#include <cstddef>
#include <cstdint>

#include "pvh.hpp"

namespace keel::multiboot2 {

// What the loader leaves in %eax at the entry (specification, 3.3).
inline constexpr uint32_t boot_magic = 0x36d76289;
// RAM ranges kept from the loader's memory map, after merging adjacent ones.
inline constexpr std::size_t max_memmap_entries = 64;

// The start info built from the boot information, and the memory map it points
// to: its RAM ranges, copied out of the loader's memory (which the page
// allocator will reuse). The kernel takes nothing else from the map.
struct Converted {
  pvh::StartInfo info;
  pvh::MemmapEntry memmap[max_memmap_entries];
};

enum class Status { ok, too_short, bad_tag, no_memory_map };

// Reads the boot information at `boot_info` (its first word is its own size).
// The command line is not copied: `out.info.cmdline_paddr` points into it.
Status convert(const uint8_t* boot_info, Converted& out);

}  // namespace keel::multiboot2
