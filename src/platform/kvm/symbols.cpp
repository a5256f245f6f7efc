// The image's own tables, written by tools/keel-symbols into .keel_symbols
// at build time: function names for backtraces (so even a stripped image
// names the functions in a panic), the names of the types an exception may
// have, and the addresses of the C library's crash traps (int3 where musl
// had a hlt: tools/keel-crash-traps). Names are compressed (see the tool);
// decoding needs neither the heap nor libc, as a panic may be about either.
#include "symbols.hpp"

#include <cstdint>
#include <cstring>

#include "kernel/platform.hpp"

extern "C" char __keel_symbols_start[], __keel_symbols_end[];

namespace {

struct [[gnu::packed]] TableHeader {
  char magic[4];  // "KSY4"
  uint32_t function_count;
  uint32_t type_count;
  uint32_t trap_count;
  uint64_t base;  // the offsets below are from here
};
constexpr std::size_t pair_table_size = 256 * 2;
constexpr std::size_t max_name = 256;  // the tool cuts names at 200

struct Tables {
  uint64_t base = 0;
  // Arrays of u32 offsets from base, sorted (the blob may be unaligned).
  const uint8_t* functions = nullptr;
  std::size_t function_count = 0;
  const uint8_t* types = nullptr;
  std::size_t type_count = 0;
  const uint8_t* traps = nullptr;
  std::size_t trap_count = 0;
  const uint8_t* pairs = nullptr;  // [256][2]; (0, 0): the byte itself
  const uint8_t* names = nullptr;  // per name: shared, length, bytes
  const uint8_t* names_end = nullptr;
};

// Checks the blob's sizes before trusting any of it.
Tables tables() {
  Tables t;
  std::size_t size = std::size_t(__keel_symbols_end - __keel_symbols_start);
  if (size < sizeof(TableHeader)) return t;
  TableHeader header;
  std::memcpy(&header, __keel_symbols_start, sizeof header);
  if (std::memcmp(header.magic, "KSY4", 4) != 0) return t;
  std::size_t offsets = std::size_t(header.function_count) + header.type_count + header.trap_count;
  if (offsets * sizeof(uint32_t) + pair_table_size > size - sizeof(TableHeader)) return t;
  auto* p = reinterpret_cast<const uint8_t*>(__keel_symbols_start) + sizeof(TableHeader);
  t.base = header.base;
  t.functions = p;
  t.function_count = header.function_count;
  t.types = t.functions + t.function_count * sizeof(uint32_t);
  t.type_count = header.type_count;
  t.traps = t.types + t.type_count * sizeof(uint32_t);
  t.trap_count = header.trap_count;
  t.pairs = p + offsets * sizeof(uint32_t);
  t.names = t.pairs + pair_table_size;
  t.names_end = reinterpret_cast<const uint8_t*>(__keel_symbols_end);
  return t;
}

uint32_t offset_at(const uint8_t* offsets, std::size_t i) {
  uint32_t value;
  std::memcpy(&value, offsets + i * sizeof value, sizeof value);
  return value;
}

// Index of the last offset <= key in a sorted array, or count when none.
std::size_t last_at_or_below(const uint8_t* offsets, std::size_t count, uint64_t key) {
  std::size_t low = 0, high = count;
  while (low < high) {
    std::size_t mid = (low + high) / 2;
    if (offset_at(offsets, mid) <= key) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low == 0 ? count : low - 1;
}

// Appends the expansion of `code` to name[length...], stopping when full.
// Every expansion grows the stack by one, so a table with a cycle in it
// stops at the stack's size rather than looping.
void expand(const Tables& t, uint8_t code, char* name, std::size_t& length) {
  uint8_t stack[max_name];
  std::size_t depth = 0;
  stack[depth++] = code;
  while (depth > 0 && length < max_name - 1) {
    uint8_t c = stack[--depth];
    uint8_t first = t.pairs[2 * c], second = t.pairs[2 * c + 1];
    if (first == 0 && second == 0) {
      name[length++] = char(c);
    } else if (depth + 2 <= sizeof stack) {
      stack[depth++] = second;
      stack[depth++] = first;
    } else {
      return;
    }
  }
}

// The index-th name (functions first, then types), decoded into a static
// buffer: each name builds on the one before it, so all before it are read.
const char* name_at(const Tables& t, std::size_t index) {
  static char name[max_name];
  std::size_t length = 0;
  const uint8_t* p = t.names;
  for (std::size_t i = 0; i <= index; ++i) {
    if (t.names_end - p < 2 || std::size_t(t.names_end - p - 2) < p[1]) return nullptr;
    std::size_t shared = p[0], rest = p[1];
    length = shared < length ? shared : length;
    for (std::size_t j = 0; j < rest; ++j) expand(t, p[2 + j], name, length);
    p += 2 + rest;
  }
  name[length] = '\0';
  return name;
}

}  // namespace

namespace keel::platform {

Symbol symbolize(uint64_t address) {
  Tables t = tables();
  if (address < t.base) return {nullptr, 0};
  std::size_t i = last_at_or_below(t.functions, t.function_count, address - t.base);
  if (i == t.function_count) return {nullptr, 0};
  const char* name = name_at(t, i);
  if (!name) return {nullptr, 0};
  return {name, address - t.base - offset_at(t.functions, i)};
}

const char* type_name(const char* mangled) {
  Tables t = tables();
  auto address = reinterpret_cast<uint64_t>(mangled);
  if (address < t.base) return nullptr;
  std::size_t i = last_at_or_below(t.types, t.type_count, address - t.base);
  // name() skips the '*' that marks a type of internal linkage.
  if (i == t.type_count || address - t.base - offset_at(t.types, i) > 1) return nullptr;
  return name_at(t, t.function_count + i);
}

}  // namespace keel::platform

namespace keel::kvm {

bool is_crash_trap(uint64_t address) {
  Tables t = tables();
  if (address < t.base) return false;
  std::size_t i = last_at_or_below(t.traps, t.trap_count, address - t.base);
  return i != t.trap_count && offset_at(t.traps, i) == address - t.base;
}

uint64_t function_start(uint64_t address) {
  Tables t = tables();
  if (address < t.base) return 0;
  std::size_t i = last_at_or_below(t.functions, t.function_count, address - t.base);
  return i == t.function_count ? 0 : t.base + offset_at(t.functions, i);
}

}  // namespace keel::kvm
