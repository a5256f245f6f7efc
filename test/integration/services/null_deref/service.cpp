// Dereferences a null pointer: the image must panic, not hang.
#include <cstdio>
#include <os>

[[gnu::noinline]] int read_through(volatile int* p) { return *p; }

void Service::start() {
  std::printf("about to dereference null\n");
  read_through(nullptr);
  std::printf("still alive: the fault was missed\n");
}
