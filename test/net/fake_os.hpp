// A stand-in for the kernel's os:: API, for the one test binary that builds
// the image's stack (net::stack(), src/net/system.cpp): virtual time that
// moves only when the test advances it, and timers that run then. The other
// network tests give the stack a ManualClock and need no OS at all.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel::test {

// Moves virtual time forward, running due timers in deadline order.
void advance_os(std::chrono::nanoseconds d);
// What os::args() returns.
void set_args(std::vector<std::string> args);
std::size_t armed_timers();
// os::wall_clock() is this plus the virtual time (2026-11-27T10:00:00Z).
inline constexpr uint64_t wall_clock_base = 1'795'773'600ull * 1'000'000'000;
// What the console's tap (syslog) sees of a line the service prints.
void print(std::string_view text);

}  // namespace keel::test
