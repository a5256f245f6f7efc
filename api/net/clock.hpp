// Time for the network stack, injected: what time it is, and one wake-up
// at the stack's earliest deadline. Protocols keep their own deadlines (ARP
// retries, reassembly timeouts, DHCP renewals, TCP retransmissions) and the
// stack asks its clock for a single wake-up at the earliest of them, moving
// it as deadlines change: no timer allocated per re-arm. net::stack() uses
// the OS's clock and timers; tests pass a clock they advance by hand.
#pragma once
#include <cstdint>
#include <util/delegate.hpp>

namespace net {

class Clock {
 public:
  static constexpr uint64_t never = UINT64_MAX;
  using Wakeup = keel::delegate<void()>;

  virtual ~Clock() = default;
  // Monotonic nanoseconds.
  virtual uint64_t now_ns() const = 0;
  // Calls the wake-up at (or soon after) `deadline_ns`, instead of any
  // earlier request; `never` cancels.
  virtual void wake_at(uint64_t deadline_ns) = 0;
  // Set by the stack that uses this clock.
  void set_wakeup(Wakeup wakeup) { wakeup_ = std::move(wakeup); }

 protected:
  void wake() {
    if (wakeup_) wakeup_();
  }

 private:
  Wakeup wakeup_;
};

}  // namespace net
