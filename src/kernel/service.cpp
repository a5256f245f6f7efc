// The portable part of an image's life: os:: API, Service::start(), the
// event loop, shutdown.
#include <cstdio>
#include <os>

#include "cmdline.hpp"
#include "console.hpp"
#include "kernel.hpp"
#include "platform.hpp"
#include "timer_queue.hpp"

namespace {

keel::kernel::TimerQueue& timer_queue() {
  static keel::kernel::TimerQueue queue;
  return queue;
}

bool shutdown_requested = false;
int shutdown_code = 0;
std::string_view boot_cmdline;
std::vector<std::string> boot_args;

uint64_t deadline_after(std::chrono::nanoseconds d) {
  int64_t ns = d.count() < 0 ? 0 : d.count();
  return keel::platform::monotonic_ns() + uint64_t(ns);
}

int run_event_loop() {
  using namespace keel;
  auto& timers = timer_queue();
  while (!shutdown_requested) {
    timers.run_due(platform::monotonic_ns());
    kernel::run_pending_events();
    bool console_idle = console::drain();
    if (shutdown_requested) break;
    // With events pending this only looks (the Linux process polls its descriptors), so an
    // event that triggers itself again (a queue worked one item per pass) never starves I/O.
    uint64_t deadline = timers.next_deadline();
    if (!console_idle) {
      // The UART is busy and its interrupt is not used: look again soon.
      constexpr uint64_t console_retry_ns = 100'000;
      uint64_t soon = platform::monotonic_ns() + console_retry_ns;
      if (soon < deadline) deadline = soon;
    }
    platform::wait_for_events(deadline);
  }
  return shutdown_code;
}

}  // namespace

namespace os {

Timers::id_t Timers::oneshot(duration_t when, handler_t handler) {
  return timer_queue().add(deadline_after(when), 0, std::move(handler));
}

Timers::id_t Timers::periodic(duration_t first, duration_t period, handler_t handler) {
  uint64_t period_ns = period.count() > 0 ? uint64_t(period.count()) : 1;
  return timer_queue().add(deadline_after(first), period_ns, std::move(handler));
}

Timers::id_t Timers::create(handler_t handler) { return timer_queue().create(std::move(handler)); }
void Timers::arm(id_t id, duration_t when) { timer_queue().arm(id, deadline_after(when)); }
void Timers::disarm(id_t id) { timer_queue().arm(id, keel::kernel::TimerQueue::no_deadline); }
void Timers::stop(id_t id) { timer_queue().stop(id); }
std::size_t Timers::active() { return timer_queue().active(); }

void shutdown(int code) {
  shutdown_requested = true;
  shutdown_code = code;
}

std::string_view cmdline() { return boot_cmdline; }
const std::vector<std::string>& args() { return boot_args; }

std::chrono::nanoseconds uptime() {
  return std::chrono::nanoseconds(keel::platform::monotonic_ns());
}

std::chrono::system_clock::time_point wall_clock() {
  auto since_epoch = std::chrono::nanoseconds(keel::platform::wall_clock_ns());
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(since_epoch));
}

std::string_view platform() { return keel::platform::name(); }

std::size_t total_memory() { return std::size_t(keel::platform::total_memory()); }
std::size_t memory_in_use() { return std::size_t(keel::platform::memory_in_use()); }

bool random_seeded() { return keel::platform::random_seeded(); }

}  // namespace os

namespace keel::kernel {

int run_service(std::string_view cmdline) {
  boot_cmdline = cmdline;
  boot_args = split_cmdline(cmdline);
  platform::before_service_start();
  Service::start();
  int code = run_event_loop();
  console::wait_when_full();  // what exit prints arrives whole
  std::fflush(nullptr);
  console::flush();
  return code;
}

}  // namespace keel::kernel
