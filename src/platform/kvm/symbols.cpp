// The image's own tables, written by tools/keel-symbols into .keel_symbols
// at build time: function names for backtraces (so even a stripped image
// names the functions in a panic) and the addresses of the C library's crash
// traps (int3 where musl had a hlt: tools/keel-crash-traps).
#include "symbols.hpp"

#include <cstdint>
#include <cstring>

#include "kernel/platform.hpp"

extern "C" char __keel_symbols_start[], __keel_symbols_end[];

namespace {

struct [[gnu::packed]] TableHeader {
  char magic[4];  // "KSY3"
  uint32_t symbol_count;
  uint32_t trap_count;
};
struct [[gnu::packed]] Entry {
  uint64_t address;
  uint32_t name_offset;  // into the strings after the trap addresses
};

struct Tables {
  const Entry* entries = nullptr;
  std::size_t entry_count = 0;
  const uint64_t* traps = nullptr;
  std::size_t trap_count = 0;
  const char* strings = nullptr;
  std::size_t strings_size = 0;
};

// Checks the blob's sizes before trusting any of it.
Tables tables() {
  Tables t;
  std::size_t size = std::size_t(__keel_symbols_end - __keel_symbols_start);
  if (size < sizeof(TableHeader)) return t;
  TableHeader header;
  std::memcpy(&header, __keel_symbols_start, sizeof header);
  if (std::memcmp(header.magic, "KSY3", 4) != 0) return t;
  std::size_t entries_size = std::size_t(header.symbol_count) * sizeof(Entry);
  std::size_t traps_size = std::size_t(header.trap_count) * sizeof(uint64_t);
  if (entries_size + traps_size > size - sizeof(TableHeader)) return t;
  const char* p = __keel_symbols_start + sizeof(TableHeader);
  t.entries = reinterpret_cast<const Entry*>(p);
  t.entry_count = header.symbol_count;
  t.traps = reinterpret_cast<const uint64_t*>(p + entries_size);
  t.trap_count = header.trap_count;
  t.strings = p + entries_size + traps_size;
  t.strings_size = size - sizeof(TableHeader) - entries_size - traps_size;
  return t;
}

// Index of the last element <= key in a sorted array, or count when none.
template <class T, class Key>
std::size_t last_at_or_below(const T* items, std::size_t count, uint64_t key, Key key_of) {
  std::size_t low = 0, high = count;
  while (low < high) {
    std::size_t mid = (low + high) / 2;
    if (key_of(items[mid]) <= key) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low == 0 ? count : low - 1;
}

}  // namespace

namespace keel::platform {

Symbol symbolize(uint64_t address) {
  Tables t = tables();
  std::size_t i =
      last_at_or_below(t.entries, t.entry_count, address, [](const Entry& e) { return e.address; });
  if (i == t.entry_count || t.entries[i].name_offset >= t.strings_size) return {nullptr, 0};
  return {t.strings + t.entries[i].name_offset, address - t.entries[i].address};
}

}  // namespace keel::platform

namespace keel::kvm {

bool is_crash_trap(uint64_t address) {
  Tables t = tables();
  std::size_t i = last_at_or_below(t.traps, t.trap_count, address, [](uint64_t a) { return a; });
  return i != t.trap_count && t.traps[i] == address;
}

}  // namespace keel::kvm
