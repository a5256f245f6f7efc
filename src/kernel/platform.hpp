// What the portable kernel needs from a platform (src/platform/kvm, linux).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel::platform {

inline constexpr uint64_t no_deadline = UINT64_MAX;

std::string_view name();
uint64_t monotonic_ns();
uint64_t wall_clock_ns();  // since the Unix epoch
// Arms the one-shot wake-up for `deadline_ns` (monotonic); no_deadline disarms.
void arm_timer(uint64_t deadline_ns);
// Sleeps until an event, the armed deadline, or returns at once if an event
// is already pending. The kvm platform halts the CPU here.
void wait_for_events();
// Writes what the console device takes now without waiting; returns bytes taken.
std::size_t console_try_write(const char* data, std::size_t size);
// Writes everything, waiting on the device: for panics and exit only.
void console_write_all(const char* data, std::size_t size);
[[noreturn]] void exit(int code);

struct Symbol {
  const char* name;  // nullptr when unknown
  uint64_t offset;
};
Symbol symbolize(uint64_t address);

}  // namespace keel::platform
