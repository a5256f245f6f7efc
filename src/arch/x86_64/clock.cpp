#include "clock.hpp"

#include <cstring>

#include "cpu.hpp"

namespace keel::arch::clock {
namespace {

constexpr uint64_t ns_per_second = 1'000'000'000;

// KVM paravirtual clock (Documentation/virt/kvm/x86/msr.rst).
constexpr uint32_t cpuid_kvm_signature = 0x40000000;
constexpr uint32_t cpuid_kvm_features = 0x40000001;
constexpr uint32_t kvm_feature_clocksource2 = 1 << 3;
constexpr uint32_t msr_kvm_wall_clock_new = 0x4b564d00;
constexpr uint32_t msr_kvm_system_time_new = 0x4b564d01;

struct PvclockTimeInfo {
  uint32_t version;
  uint32_t pad0;
  uint64_t tsc_timestamp;
  uint64_t system_time;
  uint32_t tsc_to_system_mul;
  int8_t tsc_shift;
  uint8_t flags;
  uint8_t pad[2];
};
struct PvclockWallClock {
  uint32_t version;
  uint32_t sec;
  uint32_t nsec;
};

alignas(64) volatile PvclockTimeInfo pvclock_time;
alignas(64) volatile PvclockWallClock pvclock_wall;

Source clock_source = Source::pit_calibrated;
uint64_t tsc_rate_hz = 0;
uint64_t tsc_at_init = 0;
uint64_t ns_per_tick_q32 = 0;  // ns per TSC tick, 32.32 fixed point
uint64_t wall_at_init_ns = 0;
bool wall_known = false;

bool has_kvmclock() {
  CpuidResult sig = cpuid(cpuid_kvm_signature);
  char vendor[12];
  std::memcpy(vendor + 0, &sig.ebx, 4);
  std::memcpy(vendor + 4, &sig.ecx, 4);
  std::memcpy(vendor + 8, &sig.edx, 4);
  if (std::memcmp(vendor, "KVMKVMKVM\0\0\0", 12) != 0) return false;
  return cpuid(cpuid_kvm_features).eax & kvm_feature_clocksource2;
}

// The pvclock formula, with its version check for a torn read.
uint64_t pvclock_ns() {
  for (;;) {
    uint32_t version = pvclock_time.version;
    asm volatile("" ::: "memory");
    uint64_t delta = rdtsc() - pvclock_time.tsc_timestamp;
    int8_t shift = pvclock_time.tsc_shift;
    delta = shift >= 0 ? delta << shift : delta >> -shift;
    uint64_t ns = pvclock_time.system_time +
                  uint64_t(((unsigned __int128)delta * pvclock_time.tsc_to_system_mul) >> 32);
    asm volatile("" ::: "memory");
    if ((version & 1) == 0 && version == pvclock_time.version) return ns;
  }
}

bool init_kvmclock() {
  if (!has_kvmclock()) return false;
  wrmsr(msr_kvm_system_time_new, reinterpret_cast<uint64_t>(&pvclock_time) | 1);
  wrmsr(msr_kvm_wall_clock_new, reinterpret_cast<uint64_t>(&pvclock_wall));
  uint32_t mul = pvclock_time.tsc_to_system_mul;
  int8_t shift = pvclock_time.tsc_shift;
  if (mul == 0) return false;
  // ns = ((ticks << shift) * mul) >> 32, so ticks per ns = 2^32 / (mul << shift).
  unsigned __int128 hz = ((unsigned __int128)ns_per_second << 32) / mul;
  hz = shift >= 0 ? hz >> shift : hz << -shift;
  tsc_rate_hz = uint64_t(hz);
  uint64_t boot_wall = uint64_t(pvclock_wall.sec) * ns_per_second + pvclock_wall.nsec;
  wall_at_init_ns = boot_wall + pvclock_ns();
  wall_known = true;
  return true;
}

// Counts TSC ticks across 2 ms of the PIT's channel 0, read by latching the
// counter: that needs no gate on port 0x61, which microvm does not have.
bool calibrate_with_pit() {
  constexpr uint16_t pit_channel0 = 0x40, pit_command = 0x43;
  constexpr uint8_t channel0_rate_generator = 0x34;  // lobyte/hibyte, mode 2
  constexpr uint8_t latch_channel0 = 0x00;
  constexpr uint64_t pit_hz = 1'193'182;
  constexpr uint64_t window_ticks = pit_hz / 500;  // 2 ms: +-1 tick is 0.04%
  constexpr uint64_t max_spins = 50'000'000;
  auto read_counter = [] {
    outb(pit_command, latch_channel0);
    uint8_t low = inb(pit_channel0);
    return uint16_t(low | (inb(pit_channel0) << 8));
  };
  outb(pit_command, channel0_rate_generator);
  outb(pit_channel0, 0);  // reload 0 = 65536: the longest period
  outb(pit_channel0, 0);
  uint16_t previous = read_counter();
  uint64_t start = rdtsc(), elapsed = 0, spins = 0;
  constexpr uint64_t max_unchanged_reads = 10'000;
  uint64_t unchanged = 0;
  while (elapsed < window_ticks) {
    uint16_t now = read_counter();
    elapsed += uint16_t(previous - now);  // counts down, wrapping at 65536
    unchanged = now == previous ? unchanged + 1 : 0;
    previous = now;
    // A counter that never moves means no PIT behind the port.
    if (unchanged > max_unchanged_reads || ++spins > max_spins) return false;
  }
  uint64_t ticks = rdtsc() - start;
  tsc_rate_hz = ticks * pit_hz / elapsed;
  return tsc_rate_hz > 0;
}

bool rate_from_cpuid() {
  // Leaf 0x16: processor base frequency in MHz.
  if (cpuid(0).eax < 0x16) return false;
  uint32_t mhz = cpuid(0x16).eax & 0xffff;
  if (mhz == 0) return false;
  tsc_rate_hz = uint64_t(mhz) * 1'000'000;
  return true;
}

uint8_t cmos_read(uint8_t reg) {
  constexpr uint16_t cmos_index = 0x70, cmos_data = 0x71;
  outb(cmos_index, reg);
  return inb(cmos_data);
}

uint64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's algorithm: days since 1970-01-01.
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  unsigned yoe = unsigned(y - era * 400);
  unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return uint64_t(era * 146097 + int64_t(doe) - 719468);
}

// Reads the RTC twice until two reads agree, so an update can't tear it.
// Without an RTC (Firecracker) the wall clock starts at the epoch.
uint64_t read_rtc_ns() {
  constexpr uint8_t status_a = 0x0a, status_b = 0x0b, update_in_progress = 0x80;
  constexpr uint8_t binary_mode = 0x04, hour_pm = 0x80, mode_24h = 0x02;
  uint8_t regs[6], again[6];
  const uint8_t index[6] = {0x00, 0x02, 0x04, 0x07, 0x08, 0x09};
  constexpr int max_update_waits = 100'000;  // an update lasts < 2 ms
  constexpr uint8_t absent = 0xff;           // what a port with no RTC reads
  if (cmos_read(status_a) == absent && cmos_read(status_b) == absent) return 0;
  auto read_all = [&](uint8_t* out) {
    for (int i = 0; i < max_update_waits && (cmos_read(status_a) & update_in_progress); ++i) {
      pause();
    }
    for (int i = 0; i < 6; ++i) out[i] = cmos_read(index[i]);
  };
  read_all(regs);
  for (int tries = 0; tries < 5; ++tries) {
    read_all(again);
    if (std::memcmp(regs, again, sizeof regs) == 0) break;
    std::memcpy(regs, again, sizeof regs);
  }
  uint8_t b = cmos_read(status_b);
  bool pm = !(b & mode_24h) && (regs[2] & hour_pm);
  regs[2] &= ~hour_pm;
  if (!(b & binary_mode)) {
    for (uint8_t& r : regs) r = uint8_t((r & 0x0f) + (r >> 4) * 10);
  }
  unsigned hour = regs[2] % 12 + (pm ? 12 : 0);
  if (b & mode_24h) hour = regs[2];
  uint64_t days = days_from_civil(2000 + regs[5], regs[4], regs[3]);
  return ((days * 24 + hour) * 60 + regs[1]) * 60 * ns_per_second + regs[0] * ns_per_second;
}

}  // namespace

void init() {
  if (init_kvmclock()) {
    clock_source = Source::kvmclock;
  } else if (calibrate_with_pit()) {
    clock_source = Source::pit_calibrated;
  } else if (rate_from_cpuid()) {
    clock_source = Source::cpuid;
  } else {
    tsc_rate_hz = 1'000'000'000;  // a guess beats no clock; keel boot warns about TCG
    clock_source = Source::cpuid;
  }
  ns_per_tick_q32 = uint64_t(((unsigned __int128)ns_per_second << 32) / tsc_rate_hz);
  tsc_at_init = rdtsc();
}

uint64_t monotonic_ns() {
  uint64_t ticks = rdtsc() - tsc_at_init;
  return uint64_t(((unsigned __int128)ticks * ns_per_tick_q32) >> 32);
}

uint64_t tsc_at(uint64_t ns) {
  return tsc_at_init + uint64_t((unsigned __int128)ns * tsc_rate_hz / ns_per_second);
}

uint64_t wall_clock_ns() {
  if (!wall_known) {
    wall_at_init_ns = read_rtc_ns() - monotonic_ns();
    wall_known = true;
  }
  return wall_at_init_ns + monotonic_ns();
}

uint64_t tsc_hz() { return tsc_rate_hz; }
Source source() { return clock_source; }

}  // namespace keel::arch::clock
