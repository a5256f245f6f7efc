// Bytes the process's heap holds now, for tests that check memory stays
// flat: glibc's count, or AddressSanitizer's when it owns the heap.
#pragma once
#include <malloc.h>

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer's runtime (declared here: GCC ships no header for it).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace keel::test {

inline std::size_t heap_in_use() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;  // small chunks in use, and big ones mmapped
#endif
}

}  // namespace keel::test
