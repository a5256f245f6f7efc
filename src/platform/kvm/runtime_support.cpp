// The few symbols the static C++ runtime expects from a dynamic loader or a
// newer libc than musl: Keel is one static image with one thread.
#include <dlfcn.h>
#include <iconv.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>

#include "kernel/kernel.hpp"

extern "C" {

extern char __image_start[], __image_end[], __eh_frame_hdr_start[];
int64_t keel_random_bytes(uint8_t* buffer, uint64_t size);  // syscalls.cpp

void* __dso_handle = &__dso_handle;
char __libc_single_threaded = 1;

// libgcc's unwinder finds .eh_frame through this (glibc 2.35's API).
int _dl_find_object(void* pc, dl_find_object* result) {
  auto address = reinterpret_cast<uintptr_t>(pc);
  if (address < reinterpret_cast<uintptr_t>(__image_start) ||
      address >= reinterpret_cast<uintptr_t>(__image_end)) {
    return -1;
  }
  std::memset(result, 0, sizeof *result);
  result->dlfo_map_start = __image_start;
  result->dlfo_map_end = __image_end;
  result->dlfo_eh_frame = __eh_frame_hdr_start;
  return 0;
}

// libstdc++'s std::random_device; the same source as getrandom().
uint32_t arc4random() {
  uint32_t value;
  keel_random_bytes(reinterpret_cast<uint8_t*>(&value), sizeof value);
  return value;
}
}

// std::terminate's handler from the first instruction (global constructors
// included). libstdc++ keeps its default in a file of its own,
// eh_term_handler.o, so that it can be replaced: defined here, that file
// and the verbose handler it names stay out of the image, and with them the
// demangler (~46 KiB, decision 0088).
namespace __cxxabiv1 {
extern std::terminate_handler __terminate_handler;
std::terminate_handler __terminate_handler = keel::kernel::on_uncaught_exception;
}  // namespace __cxxabiv1

// libstdc++'s locale set-up references iconv, which would pull in musl's
// ~100 KiB of CJK conversion tables. Keel images have only the C locale,
// so character-set conversion is not offered: iconv_open fails cleanly.

extern "C" {

iconv_t iconv_open(const char*, const char*) {
  errno = EINVAL;
  return reinterpret_cast<iconv_t>(-1);
}

size_t iconv(iconv_t, char**, size_t*, char**, size_t*) {
  errno = EBADF;
  return static_cast<size_t>(-1);
}

int iconv_close(iconv_t) { return 0; }
}
