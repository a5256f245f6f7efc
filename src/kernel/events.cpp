#include <kernel/events.hpp>

#include "kernel.hpp"

namespace {
// Written by interrupt handlers with atomic or; taken whole by the loop.
uint64_t pending_events = 0;
uint64_t allocated_events = 0;
os::Events::handler_t handlers[os::Events::max_events];
}  // namespace

namespace os {

int Events::allocate(handler_t handler) {
  for (int event = 0; event < max_events; ++event) {
    if (!(allocated_events & (1ull << event))) {
      subscribe(event, std::move(handler));
      return event;
    }
  }
  return -1;
}

void Events::subscribe(int event, handler_t handler) {
  if (event < 0 || event >= max_events) keel::kernel::panic("Events::subscribe: no such event");
  allocated_events |= 1ull << event;
  handlers[event] = std::move(handler);
}

void Events::trigger(int event) {
  if (event < 0 || event >= max_events) return;
  __atomic_fetch_or(&pending_events, 1ull << event, __ATOMIC_RELEASE);
}

}  // namespace os

namespace keel::kernel {

bool events_pending() { return __atomic_load_n(&pending_events, __ATOMIC_ACQUIRE) != 0; }

std::size_t run_pending_events() {
  uint64_t pending = __atomic_exchange_n(&pending_events, 0, __ATOMIC_ACQ_REL);
  std::size_t ran = 0;
  while (pending) {
    int event = __builtin_ctzll(pending);
    pending &= pending - 1;
    if (handlers[event]) {
      handlers[event]();
      ++ran;
    }
  }
  return ran;
}

}  // namespace keel::kernel
