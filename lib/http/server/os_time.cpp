// The kernel's time for a Server: a net::Clock on one os::Timers timer (as
// the network stack's own, src/net/system.cpp) and os::wall_clock for Date.
// Built into images and the Linux-process build only (keel-library.cmake).
#include <os>

#include "keel/http/server.hpp"

namespace keel::http {
namespace {

class OsClock final : public net::Clock {
 public:
  OsClock() : timer_(os::Timers::create([this](os::Timers::id_t) { wake(); })) {}
  uint64_t now_ns() const override { return uint64_t(os::uptime().count()); }
  void wake_at(uint64_t deadline_ns) override {
    if (deadline_ns == never) {
      os::Timers::disarm(timer_);
      return;
    }
    const uint64_t now = now_ns();
    os::Timers::arm(timer_, std::chrono::nanoseconds(deadline_ns > now ? deadline_ns - now : 0));
  }

 private:
  os::Timers::id_t timer_;
};

}  // namespace

ServerTime os_server_time() {
  // Never freed: a server lives as long as the service.
  auto* clock = new OsClock();
  return ServerTime{clock, [] {
                      return int64_t(std::chrono::duration_cast<std::chrono::seconds>(
                                         os::wall_clock().time_since_epoch())
                                         .count());
                    }};
}

}  // namespace keel::http
