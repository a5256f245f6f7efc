// Recurses with 12 KiB frames: each call jumps far past a page, so only
// stack-clash probes and a large guard catch the overflow before it
// reaches other memory.
#include <cstdio>
#include <os>

[[gnu::noinline]] int deep(int depth) {
  volatile char frame[12 * 1024];
  frame[depth % sizeof frame] = char(depth);
  return deep(depth + 1) + frame[0];
}

void Service::start() {
  std::printf("about to overflow with big frames\n");
  std::printf("%d\n", deep(0));
}
