// The kernel's platform interface as an ordinary Linux process: the same
// event loop sleeps in epoll_wait instead of hlt (see watch.hpp for devices).
#include "kernel/platform.hpp"

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <unistd.h>

#include "kernel/kernel.hpp"
#include "watch.hpp"

namespace keel::platform {
namespace {

uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

uint64_t boot_ns = clock_ns(CLOCK_MONOTONIC);
uint64_t armed_deadline = no_deadline;

}  // namespace

std::string_view name() { return "linux"; }
uint64_t monotonic_ns() { return clock_ns(CLOCK_MONOTONIC) - boot_ns; }
uint64_t wall_clock_ns() { return clock_ns(CLOCK_REALTIME); }
void arm_timer(uint64_t deadline_ns) { armed_deadline = deadline_ns; }

void wait_for_events() {
  if (kernel::events_pending()) return;
  int timeout_ms = -1;
  if (armed_deadline != no_deadline) {
    uint64_t now = monotonic_ns();
    uint64_t wait_ns = armed_deadline > now ? armed_deadline - now : 0;
    // Round up: waking a little late is fine, waking early spins.
    timeout_ms = int((wait_ns + 999'999) / 1'000'000);
  }
  linux_platform::wait_for_watched_fds(timeout_ms);
}

std::size_t console_try_write(const char* data, std::size_t size) {
  ssize_t n = ::write(STDOUT_FILENO, data, size);
  return n > 0 ? std::size_t(n) : 0;
}

void console_write_all(const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(STDOUT_FILENO, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= std::size_t(n);
  }
}

void exit(int code) { std::_Exit(code); }

Symbol symbolize(uint64_t) { return {nullptr, 0}; }

}  // namespace keel::platform

namespace keel::kernel {
// A Linux process panics from signal handlers, without a saved CpuState.
void print_registers(const CpuState&) {}
uint64_t frame_pointer_of(const CpuState&) { return 0; }
uint64_t instruction_pointer_of(const CpuState&) { return 0; }
}  // namespace keel::kernel
