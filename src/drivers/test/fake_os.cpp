// fake_os.hpp: the kernel's events and timers as a test drives them.
#include "drivers/test/fake_os.hpp"

#include <os>

namespace keel::drivers::virtio::fake {
os::Events::handler_t event_handler;
os::Timers::handler_t reap_handler;
int triggered = 0;
std::size_t guest_memory = std::size_t(64) << 20;
}  // namespace keel::drivers::virtio::fake

using namespace keel::drivers::virtio::fake;

namespace os {
int Events::allocate(handler_t handler) {
  event_handler = std::move(handler);
  return 0;
}
void Events::subscribe(int, handler_t handler) { event_handler = std::move(handler); }
void Events::trigger(int) { ++triggered; }
Timers::id_t Timers::oneshot(duration_t, handler_t) { return 1; }
Timers::id_t Timers::periodic(duration_t, duration_t, handler_t) { return 1; }
Timers::id_t Timers::create(handler_t handler) {
  reap_handler = std::move(handler);
  return 1;
}
void Timers::arm(id_t, duration_t) {}
void Timers::disarm(id_t) {}
void Timers::stop(id_t) {}
std::size_t total_memory() { return guest_memory; }
}  // namespace os
