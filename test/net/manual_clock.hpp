// A clock the test moves by hand (api/net/clock.hpp): the stack's wake-up
// runs when advance() passes the deadline the stack asked for.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <net/clock.hpp>

namespace keel::test {

class ManualClock final : public ::net::Clock {
 public:
  uint64_t now_ns() const override { return now_; }
  void wake_at(uint64_t deadline_ns) override { deadline_ = deadline_ns; }

  // Moves time forward by `d`, waking the stack at each deadline it asks
  // for on the way (advance(0ns) runs what is due now, e.g. loopback).
  void advance(std::chrono::nanoseconds d) {
    uint64_t end = now_ + uint64_t(d.count());
    while (deadline_ <= end) {
      now_ = std::max(now_, deadline_);
      deadline_ = never;
      wake();
    }
    now_ = end;
  }
  uint64_t deadline() const { return deadline_; }

 private:
  uint64_t now_ = 0;
  uint64_t deadline_ = never;
};

// A second clock that reads another's time (one side of a pair of stacks,
// say) and keeps its own wake-up, run by run_due() from the test's steps.
class FollowingClock final : public ::net::Clock {
 public:
  explicit FollowingClock(const ::net::Clock& base) : base_(base) {}
  uint64_t now_ns() const override { return base_.now_ns(); }
  void wake_at(uint64_t deadline_ns) override { deadline_ = deadline_ns; }
  void run_due() {
    while (deadline_ <= now_ns()) {
      deadline_ = never;
      wake();
    }
  }

 private:
  const ::net::Clock& base_;
  uint64_t deadline_ = never;
};

}  // namespace keel::test
