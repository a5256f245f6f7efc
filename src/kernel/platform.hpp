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
uint64_t total_memory();
uint64_t memory_in_use();  // os::memory_in_use()
// Sleeps until an event is pending or the monotonic `deadline_ns` passes
// (no_deadline: no timer); returns at once if either already holds. Arming
// the wake-up and checking happen with interrupts off, so a timer that
// fires in between still wakes the sleep. The kvm platform halts the CPU; the
// Linux process, with an event already pending, still polls its descriptors
// (without waiting), as interrupts would have marked them in an image.
void wait_for_events(uint64_t deadline_ns);
// Writes what the console device takes now without waiting; returns bytes taken.
std::size_t console_try_write(const char* data, std::size_t size);
// Writes everything, waiting on the device: for panics and exit only.
void console_write_all(const char* data, std::size_t size);
[[noreturn]] void exit(int code);
// Called once before Service::start(), with os::args() set: platform
// features the command line turns on (kvm: keel.profile=).
void before_service_start();
// Whether getrandom() is served from a generator seeded by a real entropy
// source (kvm: virtio-rng, RDSEED or RDRAND; linux: the host kernel's).
bool random_seeded();

struct Symbol {
  const char* name;  // nullptr when unknown
  uint64_t offset;
};
// The name is valid until the next call.
Symbol symbolize(uint64_t address);
// The readable name of a type from its std::type_info::name(), or nullptr
// when unknown; valid until the next call.
const char* type_name(const char* mangled);
// Whether `address` lies inside the boot stack, or the image's code (both
// safe to read in a panic). The linux platform answers false.
bool stack_contains(uint64_t address);
bool code_contains(uint64_t address);

}  // namespace keel::platform
