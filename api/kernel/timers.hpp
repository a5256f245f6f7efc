// Tickless timers: each timer is a deadline in one queue; the platform arms a
// single one-shot hardware timer for the earliest. Handlers run from the
// event loop, never from interrupt context.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <util/delegate.hpp>

namespace os {

class Timers {
 public:
  using id_t = uint32_t;
  using duration_t = std::chrono::nanoseconds;
  using handler_t = keel::delegate<void(id_t)>;
  static constexpr id_t invalid_id = 0;

  // Runs `handler` once, `when` from now.
  static id_t oneshot(duration_t when, handler_t handler);
  // Runs `handler` every `period`, the first time after `first`.
  static id_t periodic(duration_t first, duration_t period, handler_t handler);
  static id_t periodic(duration_t period, handler_t handler) {
    return periodic(period, period, std::move(handler));
  }
  // A timer that stays until stop(), armed and re-armed without allocating:
  // for a deadline that moves often (a network stack's next wake-up).
  static id_t create(handler_t handler);
  // Runs a created timer's handler once, `when` from now, instead of at
  // any earlier time it was armed for.
  static void arm(id_t id, duration_t when);
  static void disarm(id_t id);
  // Cancels a timer; stopping an expired or unknown id does nothing.
  static void stop(id_t id);
  static std::size_t active();
};

}  // namespace os
