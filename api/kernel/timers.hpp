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
  // Cancels a timer; stopping an expired or unknown id does nothing.
  static void stop(id_t id);
  static std::size_t active();
};

}  // namespace os
