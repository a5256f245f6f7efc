// The kernel's platform interface as an ordinary Linux process: the same
// event loop sleeps in epoll_wait instead of hlt (see watch.hpp for devices).
#include "kernel/platform.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "kernel/kernel.hpp"
#include "memory_limit.hpp"
#include "watch.hpp"

namespace keel::platform {
namespace {

uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

uint64_t boot_ns = clock_ns(CLOCK_MONOTONIC);
}  // namespace

std::string_view name() { return "linux"; }
uint64_t monotonic_ns() { return clock_ns(CLOCK_MONOTONIC) - boot_ns; }
uint64_t wall_clock_ns() { return clock_ns(CLOCK_REALTIME); }
// The machine's memory, or the cgroup's limit where that is less (memory_limit.hpp); read once.
uint64_t total_memory() {
  static const uint64_t memory =
      std::min(uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE)),
               linux_platform::cgroup_memory_limit());
  return memory;
}
// The resident set (proc(5): /proc/self/statm's second field, in pages); 0 if unreadable.
uint64_t memory_in_use() {
  unsigned long long size = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  const bool read = std::fscanf(f, "%llu %llu", &size, &resident) == 2;
  std::fclose(f);
  return read ? resident * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}
void wait_for_events(uint64_t deadline_ns) {
  if (kernel::events_pending()) {
    linux_platform::wait_for_watched_fds(0);  // only look: ready descriptors join the pass
    return;
  }
  int timeout_ms = -1;
  if (deadline_ns != no_deadline) {
    uint64_t now = monotonic_ns();
    if (now >= deadline_ns) return;
    // Round up: waking a little late is fine, waking early spins.
    uint64_t wait_ms = (deadline_ns - now + 999'999) / 1'000'000;
    timeout_ms = wait_ms > uint64_t(INT_MAX) ? INT_MAX : int(wait_ms);
  }
  linux_platform::wait_for_watched_fds(timeout_ms);
}

// stdout stays a blocking descriptor (it may be shared with a shell), so
// ask poll() first; a pipe that polls writable takes PIPE_BUF bytes without
// blocking, a file or terminal any amount.
std::size_t console_try_write(const char* data, std::size_t size) {
  pollfd p{STDOUT_FILENO, POLLOUT, 0};
  if (::poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT)) return 0;
  ssize_t n = ::write(STDOUT_FILENO, data, size < PIPE_BUF ? size : PIPE_BUF);
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
void before_service_start() {}
// The host kernel's getrandom() blocks until its own generator is seeded.
bool random_seeded() { return true; }
bool stack_contains(uint64_t) { return false; }
bool code_contains(uint64_t) { return false; }

}  // namespace keel::platform

namespace keel::kernel {
// A Linux process panics from signal handlers, without a saved CpuState.
void print_registers(const CpuState&) {}
uint64_t frame_pointer_of(const CpuState&) { return 0; }
uint64_t instruction_pointer_of(const CpuState&) { return 0; }
uint64_t stack_pointer_of(const CpuState&) { return 0; }
}  // namespace keel::kernel
