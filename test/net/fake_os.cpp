#include "fake_os.hpp"

#include <map>
#include <os>
#include <stdexcept>
#include <string>

#include "kernel/kernel.hpp"

namespace {

struct Timer {
  uint64_t deadline;
  uint64_t period;
  os::Timers::handler_t handler;
};

uint64_t now = 0;
uint32_t next_id = 1;
std::map<os::Timers::id_t, Timer> timers;
std::vector<std::string> args;

}  // namespace

namespace keel::test {

void advance(std::chrono::nanoseconds d) {
  uint64_t end = now + uint64_t(d.count());
  for (;;) {
    auto due = timers.end();
    for (auto it = timers.begin(); it != timers.end(); ++it)
      if (it->second.deadline <= end && (due == timers.end() || it->second.deadline < due->second.deadline))
        due = it;
    if (due == timers.end()) break;
    now = std::max(now, due->second.deadline);
    os::Timers::id_t id = due->first;
    Timer t = due->second;
    if (t.period) {
      due->second.deadline += t.period;
    } else {
      timers.erase(due);
    }
    t.handler(id);
  }
  now = end;
}

void reset_os() {
  now = 0;
  timers.clear();
}

void set_args(std::vector<std::string> a) { args = std::move(a); }
std::size_t pending_timers() { return timers.size(); }

}  // namespace keel::test

namespace os {

Timers::id_t Timers::oneshot(duration_t when, handler_t handler) {
  uint64_t d = when.count() > 0 ? uint64_t(when.count()) : 0;
  timers[next_id] = Timer{now + d, 0, std::move(handler)};
  return next_id++;
}

Timers::id_t Timers::periodic(duration_t first, duration_t period, handler_t handler) {
  uint64_t p = period.count() > 0 ? uint64_t(period.count()) : 1;
  timers[next_id] = Timer{now + uint64_t(first.count()), p, std::move(handler)};
  return next_id++;
}

void Timers::stop(id_t id) { timers.erase(id); }
std::size_t Timers::active() { return timers.size(); }

std::chrono::nanoseconds uptime() { return std::chrono::nanoseconds(now); }
const std::vector<std::string>& args() { return ::args; }
std::string_view platform() { return "test"; }
std::size_t total_memory() { return std::size_t(64) << 20; }

int Events::allocate(handler_t) { return -1; }
void Events::subscribe(int, handler_t) {}
void Events::trigger(int) {}

}  // namespace os

// The host tests have no platform NICs; they build stacks on their own.
namespace keel::net {
void probe_platform_nics() {}
}  // namespace keel::net

namespace keel::kernel {
// Tests expect panics as exceptions.
[[noreturn]] void panic(std::string_view why, const CpuState*) {
  throw std::runtime_error(std::string(why));
}
}  // namespace keel::kernel
