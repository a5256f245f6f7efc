// The few symbols the static C++ runtime expects from a dynamic loader or a
// newer libc than musl: Keel is one static image with one thread.
#include <cstdint>
#include <cstring>
#include <dlfcn.h>

extern "C" {

extern char __image_start[], __image_end[], __eh_frame_hdr_start[];

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

uint32_t arc4random() {
  uint32_t value;
  asm volatile("rdtsc" : "=a"(value)::"rdx");
  return value * 2654435761u;
}

}
