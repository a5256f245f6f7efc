// Writes past a local array: the stack protector's canary check calls
// musl's __stack_chk_fail (a_crash), which must panic at once.
#include <cstdio>
#include <cstring>
#include <os>

[[gnu::noinline]] void overrun(const char* text, std::size_t len) {
  char buffer[16];
  std::memcpy(buffer, text, len);  // len > 16: over the canary
  std::printf("copied %s\n", buffer);
}

void Service::start() {
  static const char long_text[] = "far longer than sixteen bytes, long enough to hit the canary";
  std::printf("about to smash the stack\n");
  overrun(long_text, sizeof long_text);
  std::printf("ran on after smashing the stack\n");
  os::shutdown(0);
}
