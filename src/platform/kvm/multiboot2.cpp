#include "multiboot2.hpp"

#include <cstring>

namespace keel::multiboot2 {
namespace {

// Tag types (specification, 3.6.1 onwards).
constexpr uint32_t tag_end = 0, tag_cmdline = 1, tag_memory_map = 6;
constexpr std::size_t info_header_size = 8;         // total_size, reserved
constexpr std::size_t tag_header_size = 8;          // type, size
constexpr std::size_t memory_map_header_size = 16;  // type, size, entry_size, entry_version
constexpr std::size_t tag_alignment = 8;

uint32_t read32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The map's entries (base_addr, length, type, reserved) are PVH's memmap entries,
// with the same type numbers; a loader may use larger entries, so step by entry_size.
// Only RAM is kept, adjacent ranges merged: under OVMF, GRUB passes on the firmware's
// map, 117 entries at 64 MiB here (GRUB's lsmmap), 105 of them RAM split by what
// the firmware used it for, which merge into 7 ranges.
bool copy_memory_map(const uint8_t* tag, uint32_t size, Converted& out) {
  if (size < memory_map_header_size) return false;
  uint32_t entry_size = read32(tag + 8);
  if (entry_size < sizeof(pvh::MemmapEntry)) return false;
  uint32_t count = (size - memory_map_header_size) / entry_size;
  uint32_t kept = out.info.memmap_entries;
  for (uint32_t i = 0; i < count; ++i) {
    pvh::MemmapEntry entry;
    std::memcpy(&entry, tag + memory_map_header_size + i * entry_size, sizeof entry);
    if (entry.type != pvh::MemoryType::ram || entry.size == 0) continue;
    pvh::MemmapEntry* last = kept ? &out.memmap[kept - 1] : nullptr;
    if (last && last->addr + last->size == entry.addr) {
      last->size += entry.size;
    } else if (kept < max_memmap_entries) {
      out.memmap[kept++] = entry;
    }  // else: RAM beyond the table's room goes unused
  }
  out.info.memmap_paddr = reinterpret_cast<uint64_t>(out.memmap);
  out.info.memmap_entries = kept;
  return true;
}

}  // namespace

Status convert(const uint8_t* boot_info, Converted& out) {
  out.info = pvh::StartInfo{};
  out.info.magic = pvh::start_info_magic;
  out.info.version = 1;  // the first with a memory map
  uint32_t total = read32(boot_info);
  if (total < info_header_size + tag_header_size) return Status::too_short;
  std::size_t at = info_header_size;
  while (at + tag_header_size <= total) {
    const uint8_t* tag = boot_info + at;
    uint32_t type = read32(tag), size = read32(tag + 4);
    if (size < tag_header_size || size > total - at) return Status::bad_tag;
    if (type == tag_end) break;
    if (type == tag_cmdline) {
      // A NUL-terminated string filling the rest of the tag: refuse one without its NUL.
      if (std::memchr(tag + tag_header_size, 0, size - tag_header_size) == nullptr)
        return Status::bad_tag;
      out.info.cmdline_paddr = reinterpret_cast<uint64_t>(tag + tag_header_size);
    } else if (type == tag_memory_map && !copy_memory_map(tag, size, out)) {
      return Status::bad_tag;
    }
    at += (size + tag_alignment - 1) & ~(tag_alignment - 1);
  }
  return out.info.memmap_entries == 0 ? Status::no_memory_map : Status::ok;
}

}  // namespace keel::multiboot2
