#include "fake_os.hpp"

#include <map>
#include <os>
#include <stdexcept>
#include <string>

#include "kernel/console.hpp"
#include "kernel/kernel.hpp"

namespace {

constexpr uint64_t unarmed = UINT64_MAX;

struct Timer {
  uint64_t deadline = unarmed;
  uint64_t period = 0;
  bool stays = false;  // created: kept (unarmed) after it runs, until stop()
  os::Timers::handler_t handler;
};

uint64_t now = 0;
os::Timers::id_t next_id = 1;
std::map<os::Timers::id_t, Timer> timers;
std::vector<std::string> args;
std::vector<os::Events::handler_t> events;
keel::console::Counters console_counters;

}  // namespace

namespace keel::test {

void advance_os(std::chrono::nanoseconds d) {
  uint64_t end = now + uint64_t(d.count());
  for (;;) {
    auto due = timers.end();
    for (auto it = timers.begin(); it != timers.end(); ++it)
      if (it->second.deadline <= end &&
          (due == timers.end() || it->second.deadline < due->second.deadline))
        due = it;
    if (due == timers.end()) break;
    now = std::max(now, due->second.deadline);
    os::Timers::id_t id = due->first;
    os::Timers::handler_t handler = due->second.handler;
    if (due->second.period) {
      due->second.deadline += due->second.period;
    } else if (due->second.stays) {
      due->second.deadline = unarmed;
    } else {
      timers.erase(due);
    }
    handler(id);
  }
  now = end;
}

void set_args(std::vector<std::string> a) { args = std::move(a); }

std::size_t armed_timers() {
  std::size_t n = 0;
  for (const auto& [id, t] : timers) n += t.deadline != unarmed;
  return n;
}

}  // namespace keel::test

namespace os {

Timers::id_t Timers::oneshot(duration_t when, handler_t handler) {
  uint64_t d = when.count() > 0 ? uint64_t(when.count()) : 0;
  timers[next_id] = Timer{now + d, 0, false, std::move(handler)};
  return next_id++;
}

Timers::id_t Timers::periodic(duration_t first, duration_t period, handler_t handler) {
  uint64_t p = period.count() > 0 ? uint64_t(period.count()) : 1;
  timers[next_id] = Timer{now + uint64_t(first.count()), p, false, std::move(handler)};
  return next_id++;
}

Timers::id_t Timers::create(handler_t handler) {
  timers[next_id] = Timer{unarmed, 0, true, std::move(handler)};
  return next_id++;
}

void Timers::arm(id_t id, duration_t when) {
  auto it = timers.find(id);
  if (it != timers.end())
    it->second.deadline = now + (when.count() > 0 ? uint64_t(when.count()) : 0);
}

void Timers::disarm(id_t id) {
  auto it = timers.find(id);
  if (it != timers.end()) it->second.deadline = unarmed;
}

void Timers::stop(id_t id) { timers.erase(id); }
std::size_t Timers::active() { return timers.size(); }

std::chrono::nanoseconds uptime() { return std::chrono::nanoseconds(now); }
std::chrono::system_clock::time_point wall_clock() {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::nanoseconds(keel::test::wall_clock_base + now)));
}

// Events run at once: the fake has no event loop.
int Events::allocate(handler_t handler) {
  events.push_back(std::move(handler));
  return int(events.size()) - 1;
}
void Events::trigger(int event) { events.at(std::size_t(event))(); }
const std::vector<std::string>& args() { return ::args; }
std::size_t total_memory() { return std::size_t(64) << 20; }
std::size_t memory_in_use() { return std::size_t(3) << 20; }
std::string_view platform() { return "test"; }

}  // namespace os

namespace keel::console {
Tap tap = nullptr;
void set_tap(Tap t) { tap = t; }
const Counters& counters() { return console_counters; }
}  // namespace keel::console

namespace keel::test {
void print(std::string_view text) {
  if (keel::console::tap) keel::console::tap(text.data(), text.size());
}
}  // namespace keel::test

namespace keel::kernel {
// Tests expect panics as exceptions.
[[noreturn]] void panic(std::string_view why, const CpuState*) {
  throw std::runtime_error(std::string(why));
}
[[noreturn]] void stop_unconfigured(std::string_view why) {
  throw std::runtime_error("stopped: " + std::string(why));
}
}  // namespace keel::kernel
