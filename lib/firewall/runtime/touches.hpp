#pragma once
// Counting the memory a lookup reads: `keel-fw stats RULES PACKETS` reports the distinct cache
// lines and 4 KiB pages of the tables each lookup touches (under QEMU TCG every guest page a
// lookup touches costs a software TLB fill; docs/decisions/0065).
//
// The lookup marks each read of the tables with KEEL_FW_TOUCH(address, bytes). Only a build
// that defines KEEL_FW_COUNT_TOUCHES (the keel-fw tool's copy of the runtime) records them;
// everywhere else, images included, the macro is nothing and its arguments are not evaluated.
#ifdef KEEL_FW_COUNT_TOUCHES
#include <cstddef>
#include <cstdint>
#include <vector>

namespace keel::firewall::touches {

inline constexpr int kLineShift = 6;  // 64-byte cache lines

// While not null, every read of the lookup appends the numbers (address >> kLineShift) of the
// lines it covers. One lookup at a time: the tool's loop, no threads.
inline std::vector<uintptr_t>* lines = nullptr;

inline void note(const void* at, size_t bytes) {
  if (!lines || bytes == 0) return;
  const auto first = reinterpret_cast<uintptr_t>(at);
  for (uintptr_t line = first >> kLineShift; line <= (first + bytes - 1) >> kLineShift; ++line)
    lines->push_back(line);
}

}  // namespace keel::firewall::touches

#define KEEL_FW_TOUCH(at, bytes) ::keel::firewall::touches::note((at), (bytes))
#else
#define KEEL_FW_TOUCH(at, bytes) static_cast<void>(0)
#endif
