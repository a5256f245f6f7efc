// The stack's view of time: what time it is, and one wake-up for every
// protocol's deadlines (api/net/clock.hpp). A protocol that sets a deadline
// calls wake_by(); the stack polls all protocols when the wake-up comes and
// asks again for the earliest deadline left. Deadlines that move later just
// make a wake-up find nothing to do.
#pragma once
#include <cstdint>
#include <net/clock.hpp>

namespace net {

class StackTime {
 public:
  explicit StackTime(Clock& clock) : clock_(clock) {}

  uint64_t now() const { return clock_.now_ns(); }
  // Makes sure the stack polls no later than `deadline_ns`.
  void wake_by(uint64_t deadline_ns) {
    if (deadline_ns >= requested_) return;
    requested_ = deadline_ns;
    clock_.wake_at(deadline_ns);
  }
  // The wake-up came: the next request starts afresh.
  void woke() { requested_ = Clock::never; }
  Clock& clock() { return clock_; }

 private:
  Clock& clock_;
  uint64_t requested_ = Clock::never;
};

inline constexpr uint64_t ns_per_second = 1'000'000'000;

}  // namespace net
