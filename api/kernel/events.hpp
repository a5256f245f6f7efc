// Deferred interrupts: an interrupt (or, on the linux platform, a ready file
// descriptor) only marks its event pending; the event loop runs the handler.
#pragma once
#include <cstdint>
#include <util/delegate.hpp>

namespace os {

class Events {
 public:
  static constexpr int max_events = 64;
  using handler_t = keel::delegate<void()>;

  // Reserves a free event number and sets its handler; -1 when none is left.
  static int allocate(handler_t handler);
  static void subscribe(int event, handler_t handler);
  // Marks an event pending. Safe from interrupt context.
  static void trigger(int event);
};

}  // namespace os
