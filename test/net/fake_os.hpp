// A stand-in for the kernel's os:: API in unit tests and fuzzing: virtual
// time that only moves when a test advances it, timers that run then.
#pragma once
#include <chrono>
#include <string>
#include <vector>

namespace keel::test {

// Moves virtual time forward, running due timers in deadline order.
void advance(std::chrono::nanoseconds d);
// Resets time to zero and forgets every timer.
void reset_os();
// What os::args() returns.
void set_args(std::vector<std::string> args);
std::size_t pending_timers();

}  // namespace keel::test
