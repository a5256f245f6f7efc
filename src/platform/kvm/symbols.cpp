// Backtrace symbols: tools/keel-symbols writes a sorted table of function
// addresses and demangled names into .keel_symbols at build time, so even a
// stripped image names the functions in a panic.
#include <cstdint>
#include <cstring>

#include "kernel/platform.hpp"

extern "C" char __keel_symbols_start[], __keel_symbols_end[];

namespace keel::platform {
namespace {

struct [[gnu::packed]] TableHeader {
  char magic[4];  // "KSYM"
  uint32_t count;
};
struct [[gnu::packed]] Entry {
  uint64_t address;
  uint32_t name_offset;  // into the strings after the entries
};

}  // namespace

Symbol symbolize(uint64_t address) {
  std::size_t size = std::size_t(__keel_symbols_end - __keel_symbols_start);
  if (size < sizeof(TableHeader)) return {nullptr, 0};
  auto* header = reinterpret_cast<const TableHeader*>(__keel_symbols_start);
  if (std::memcmp(header->magic, "KSYM", 4) != 0) return {nullptr, 0};
  std::size_t entries_size = std::size_t(header->count) * sizeof(Entry);
  if (entries_size > size - sizeof(TableHeader)) return {nullptr, 0};
  auto* entries = reinterpret_cast<const Entry*>(header + 1);
  const char* strings = reinterpret_cast<const char*>(entries + header->count);
  std::size_t strings_size = size - sizeof(TableHeader) - entries_size;

  // The last entry whose address is <= the one asked for.
  std::size_t low = 0, high = header->count;
  while (low < high) {
    std::size_t mid = (low + high) / 2;
    if (entries[mid].address <= address) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  if (low == 0) return {nullptr, 0};
  const Entry& e = entries[low - 1];
  if (e.name_offset >= strings_size) return {nullptr, 0};
  return {strings + e.name_offset, address - e.address};
}

}  // namespace keel::platform
