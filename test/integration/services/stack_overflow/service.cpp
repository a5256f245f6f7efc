// Recurses without end: the guard page under the stack must catch it.
#include <cstdio>
#include <os>

[[gnu::noinline]] int recurse(volatile int depth) {
  volatile char frame[512];
  frame[0] = char(depth);
  return recurse(depth + 1) + frame[0];
}

void Service::start() {
  std::printf("about to overflow the stack\n");
  std::printf("%d\n", recurse(0));
}
