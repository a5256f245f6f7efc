// The Linux system calls musl and libstdc++ make, answered in-kernel as plain
// function calls (see syscall_entry.S). Anything unknown fails with ENOSYS
// and is reported once, so a missing piece shows instead of misbehaving.
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "arch/x86_64/cpu.hpp"
#include "entropy.hpp"
#include "kernel/console.hpp"
#include "kernel/format.hpp"
#include "kernel/kernel.hpp"
#include "kernel/platform.hpp"
#include "memory.hpp"

namespace {

struct SyscallFrame {
  int64_t number;
  uint64_t a6, a5, a4, a3, a2, a1;
};

constexpr uint32_t msr_fs_base = 0xc0000100;
constexpr int arch_set_fs = 0x1002;
constexpr int stdout_fd = 1, stderr_fd = 2;
constexpr uint64_t reported_capacity = 512;
uint64_t reported[reported_capacity / 64];

int64_t write_console(int fd, const char* data, uint64_t size) {
  if (fd != stdout_fd && fd != stderr_fd) return -EBADF;
  keel::console::write(data, size);
  return int64_t(size);
}

int64_t write_vector(int fd, const iovec* iov, int count) {
  // musl's stdio hands a line over as two pieces (what it buffered, the
  // rest): join them, so the console keeps or drops the line whole.
  constexpr std::size_t joined_max = 2048;  // on the caller's stack
  char joined[joined_max];
  std::size_t size = 0;
  for (int i = 0; i < count && size <= joined_max; ++i) size += iov[i].iov_len;
  if (count > 1 && size <= joined_max) {
    size = 0;
    for (int i = 0; i < count; ++i) {
      std::memcpy(joined + size, iov[i].iov_base, iov[i].iov_len);
      size += iov[i].iov_len;
    }
    return write_console(fd, joined, size);
  }
  int64_t total = 0;
  for (int i = 0; i < count; ++i) {
    int64_t n = write_console(fd, static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
    if (n < 0) return n;
    total += n;
  }
  return total;
}

void report_out_of_memory(uint64_t size) {
  char line[160];
  keel::FixedWriter w(line, sizeof line);
  w.text("Keel: out of memory: asked for ")
      .udec(size)
      .text(" bytes, ")
      .udec(keel::kvm::free_memory())
      .text(" of ")
      .udec(keel::kvm::total_memory())
      .text(" bytes free\n");
  keel::console::write(w.view().data(), w.view().size());
}

int64_t map_anonymous(uint64_t address, uint64_t size, int flags) {
  if (address != 0 && (flags & MAP_FIXED)) return -EINVAL;
  if (!(flags & MAP_ANONYMOUS)) return -ENODEV;
  uint64_t pages = keel::kvm::allocate_pages(size);
  if (pages == 0) {
    report_out_of_memory(size);
    return -ENOMEM;
  }
  return int64_t(pages);
}

int64_t clock_time(clockid_t clock, timespec* ts) {
  bool wall = clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE || clock == CLOCK_TAI;
  uint64_t ns = wall ? keel::platform::wall_clock_ns() : keel::platform::monotonic_ns();
  ts->tv_sec = time_t(ns / 1'000'000'000);
  ts->tv_nsec = long(ns % 1'000'000'000);
  return 0;
}

}  // namespace

// getrandom(2) and arc4random: the kernel's ChaCha20 generator, seeded at
// boot from virtio-rng, RDSEED and RDRAND (entropy.cpp, decision 0104).
extern "C" int64_t keel_random_bytes(uint8_t* buffer, uint64_t size) {
  keel::kvm::entropy::fill(buffer, size);
  return int64_t(size);
}

namespace {

// Linux's getrandom(2) flags and its largest answer (drivers/char/random.c).
constexpr unsigned grnd_nonblock = 1, grnd_random = 2, grnd_insecure = 4;
constexpr uint64_t max_getrandom = (1u << 25) - 1;

// Linux blocks until its generator is seeded; here no entropy can arrive
// later, so getrandom() always answers (the boot line said NOT SEEDED) and
// only GRND_NONBLOCK, the caller's way to ask "seeded yet?", gets EAGAIN.
int64_t get_random(uint8_t* buffer, uint64_t size, unsigned flags) {
  if (flags & ~(grnd_nonblock | grnd_random | grnd_insecure)) return -EINVAL;
  if ((flags & grnd_insecure) && (flags & grnd_random)) return -EINVAL;
  if ((flags & grnd_nonblock) && !(flags & grnd_insecure) && !keel::kvm::entropy::seeded())
    return -EAGAIN;
  return keel_random_bytes(buffer, size < max_getrandom ? size : max_getrandom);
}

}  // namespace

namespace {

void report_unknown(int64_t number) {
  if (number < 0 || uint64_t(number) >= reported_capacity) return;
  uint64_t bit = 1ull << (number % 64);
  if (reported[number / 64] & bit) return;
  reported[number / 64] |= bit;
  char line[96];
  keel::FixedWriter w(line, sizeof line);
  w.text("Keel: system call ").dec(number).text(" is not supported (ENOSYS)\n");
  keel::console::write(w.view().data(), w.view().size());
}

}  // namespace

extern "C" int64_t syscall_dispatch(SyscallFrame* f) {
  switch (f->number) {
    case SYS_write:
      return write_console(int(f->a1), reinterpret_cast<const char*>(f->a2), f->a3);
    case SYS_writev:
      return write_vector(int(f->a1), reinterpret_cast<const iovec*>(f->a2), int(f->a3));
    case SYS_read:
    case SYS_readv:
      return 0;  // no console input: end of file
    case SYS_ioctl:
      // TIOCGWINSZ succeeding makes musl line-buffer stdout, like a terminal.
      return f->a2 == TIOCGWINSZ ? 0 : -ENOTTY;
    case SYS_mmap:
      return map_anonymous(f->a1, f->a2, int(f->a4));
    case SYS_munmap:
      return keel::kvm::free_pages(f->a1, f->a2) ? 0 : -EINVAL;
    case SYS_brk:
      return 0;  // no break area: musl's malloc falls back to mmap
    case SYS_mremap:
      return -ENOMEM;  // realloc falls back to allocate and copy
    case SYS_madvise:
    case SYS_mprotect:
    case SYS_rt_sigprocmask:
    case SYS_rt_sigaction:
    case SYS_sched_yield:
    case SYS_futex:
    case SYS_close:
      return 0;
    case SYS_clock_gettime:
      return clock_time(clockid_t(f->a1), reinterpret_cast<timespec*>(f->a2));
    case SYS_getrandom:
      return get_random(reinterpret_cast<uint8_t*>(f->a1), f->a2, unsigned(f->a3));
    case SYS_arch_prctl:
      if (int(f->a1) != arch_set_fs) return -EINVAL;
      keel::arch::wrmsr(msr_fs_base, f->a2);
      return 0;
    case SYS_set_tid_address:
    case SYS_gettid:
    case SYS_getpid:
      return 1;
    case SYS_kill:
    case SYS_tkill:
    case SYS_tgkill: {
      int signal = int(f->number == SYS_tgkill ? f->a3 : f->a2);
      keel::kernel::panic(signal == SIGABRT ? "abort() called" : "the service raised a signal");
    }
    case SYS_exit:
    case SYS_exit_group:
      keel::console::wait_when_full();
      keel::console::flush();
      keel::platform::exit(int(f->a1));
    default:
      report_unknown(f->number);
      return -ENOSYS;
  }
}
