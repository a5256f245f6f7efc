/* Prints the host's TSC rate in kHz: TSC ticks across 200 ms of
 * CLOCK_MONOTONIC_RAW. Under TCG a guest's TSC is the host's (QEMU reads the
 * host TSC for RDTSC), so this is the guest's rate too; the Linux guest gets
 * it as tsc_early_khz= because its own PIT calibration fails when the host is
 * busy (docs/decisions/0070). */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

enum { window_ns = 200 * 1000 * 1000 };

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_RAW, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int main(void) {
  int64_t start = now_ns(), elapsed;
  uint64_t ticks = __rdtsc();
  while ((elapsed = now_ns() - start) < window_ns) {
  }
  ticks = __rdtsc() - ticks;
  printf("%llu\n", (unsigned long long)(ticks * 1000000 / (uint64_t)elapsed));
  return 0;
}
