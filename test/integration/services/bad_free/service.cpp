// Frees a misaligned pointer malloc never returned: musl's first check
// catches it and halts (its a_crash); Keel must turn that halt into a
// panic, not hang or run on.
#include <cstdio>
#include <cstdlib>
#include <os>

using namespace std::chrono_literals;

[[gnu::noinline]] void free_a_bad_pointer() {
  auto* volatile p = static_cast<char*>(std::malloc(64));
  std::free(p + 1);
}

void Service::start() {
  std::printf("about to free a bad pointer\n");
  free_a_bad_pointer();
  std::printf("ran on after a bad free\n");
  os::Timers::oneshot(5s, [](auto) { os::shutdown(0); });
}
