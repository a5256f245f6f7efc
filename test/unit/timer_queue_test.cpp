#include "kernel/timer_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

using keel::kernel::TimerQueue;

TEST(TimerQueue, EmptyHasNoDeadline) {
  TimerQueue q;
  EXPECT_EQ(q.next_deadline(), TimerQueue::no_deadline);
  EXPECT_EQ(q.run_due(1'000'000), 0u);
}

TEST(TimerQueue, RunsInDeadlineOrderAndOnlyWhenDue) {
  TimerQueue q;
  std::vector<int> order;
  q.add(300, 0, [&](auto) { order.push_back(3); });
  q.add(100, 0, [&](auto) { order.push_back(1); });
  q.add(200, 0, [&](auto) { order.push_back(2); });
  EXPECT_EQ(q.next_deadline(), 100u);
  EXPECT_EQ(q.run_due(99), 0u);
  EXPECT_EQ(q.run_due(200), 2u);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(q.next_deadline(), 300u);
  q.run_due(1000);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(q.active(), 0u);
}

TEST(TimerQueue, EqualDeadlinesRunInInsertionOrder) {
  TimerQueue q;
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) q.add(50, 0, [&order, i](auto) { order.push_back(i); });
  q.run_due(50);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(TimerQueue, StoppedTimerNeverRuns) {
  TimerQueue q;
  bool ran = false;
  auto id = q.add(10, 0, [&](auto) { ran = true; });
  q.stop(id);
  EXPECT_EQ(q.next_deadline(), TimerQueue::no_deadline);
  q.run_due(100);
  EXPECT_FALSE(ran);
  q.stop(id);  // stopping twice is harmless
  q.stop(12345);
}

TEST(TimerQueue, PeriodicRearmsFromItsDeadlineWithoutDrift) {
  TimerQueue q;
  int runs = 0;
  q.add(100, 100, [&](auto) { ++runs; });
  q.run_due(100);
  EXPECT_EQ(q.next_deadline(), 200u);
  q.run_due(250);  // late: the next deadline stays on the 100-grid
  EXPECT_EQ(q.next_deadline(), 300u);
  EXPECT_EQ(runs, 2);
}

TEST(TimerQueue, PeriodicAfterLongStallDoesNotBurst) {
  TimerQueue q;
  int runs = 0;
  q.add(100, 100, [&](auto) { ++runs; });
  q.run_due(10'000);  // 99 periods missed: run once, not 99 times
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(q.next_deadline(), 10'100u);
}

TEST(TimerQueue, HandlerMayStopItselfAndAddOthers) {
  TimerQueue q;
  int periodic_runs = 0, added_runs = 0;
  TimerQueue::id_t self = 0;
  self = q.add(10, 10, [&](auto id) {
    ++periodic_runs;
    EXPECT_EQ(id, self);
    q.stop(id);
    q.add(15, 0, [&](auto) { ++added_runs; });
  });
  q.run_due(20);
  EXPECT_EQ(periodic_runs, 1);
  EXPECT_EQ(added_runs, 1);
  EXPECT_EQ(q.active(), 0u);
}

TEST(TimerQueue, IdsAreUniqueAndNeverInvalid) {
  TimerQueue q;
  auto a = q.add(1, 0, [](auto) {});
  auto b = q.add(1, 0, [](auto) {});
  EXPECT_NE(a, b);
  EXPECT_NE(a, os::Timers::invalid_id);
  EXPECT_NE(b, os::Timers::invalid_id);
}

TEST(TimerQueue, IdsWrapPastTheInvalidId) {
  TimerQueue q(UINT32_MAX);
  EXPECT_EQ(q.add(10, 0, [](auto) {}), UINT32_MAX);
  EXPECT_EQ(q.add(10, 0, [](auto) {}), 1u);  // 0 is os::Timers::invalid_id
}

TEST(TimerQueue, WrappedIdsSkipTimersStillAlive) {
  TimerQueue q;
  int long_lived_runs = 0, newer_runs = 0;
  auto long_lived = q.add(1000, 0, [&](auto) { ++long_lived_runs; });
  q.restart_ids_for_tests(long_lived);  // as after 2^32 more timers
  auto newer = q.add(20, 0, [&](auto) { ++newer_runs; });
  EXPECT_NE(newer, long_lived);
  q.stop(newer);  // must not stop the long-lived timer
  q.run_due(1000);
  EXPECT_EQ(long_lived_runs, 1);
  EXPECT_EQ(newer_runs, 0);
}

TEST(TimerQueue, StoppedTimersDoNotPileUp) {
  TimerQueue q;
  // A per-packet idle timeout: stop the old one, arm a new one, 100,000 times.
  auto id = q.add(60'000'000'000, 0, [](auto) {});
  for (int i = 0; i < 100'000; ++i) {
    q.stop(id);
    id = q.add(60'000'000'000 + i, 0, [](auto) {});
  }
  EXPECT_EQ(q.active(), 1u);
  EXPECT_LE(q.queued_entries(), 2 * q.active() + 65);
  int runs = 0;
  q.add(1, 0, [&](auto) { ++runs; });
  q.run_due(60'000'000'000 + 100'000);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(q.active(), 0u);
}

TEST(TimerQueue, CreatedTimersStayAndRearmWithoutPilingUp) {
  TimerQueue q;
  std::vector<uint64_t> ran_at;
  uint64_t now = 0;
  auto id = q.create([&](auto) { ran_at.push_back(now); });
  EXPECT_EQ(q.next_deadline(), TimerQueue::no_deadline);  // created unarmed
  // A deadline that moves on every packet: later, earlier, later again.
  for (int i = 0; i < 100'000; ++i) q.arm(id, 1'000 + uint64_t(i % 7) * 100);
  EXPECT_LE(q.queued_entries(), 2 * q.active() + 65);
  EXPECT_EQ(q.next_deadline(), 1'000 + uint64_t(99'999 % 7) * 100);  // the last arm wins
  now = 2'000;
  EXPECT_EQ(q.run_due(now), 1u);
  EXPECT_EQ(ran_at, std::vector<uint64_t>{2'000});
  EXPECT_EQ(q.active(), 1u);  // still there, unarmed
  EXPECT_EQ(q.next_deadline(), TimerQueue::no_deadline);
  q.arm(id, 3'000);
  q.arm(id, TimerQueue::no_deadline);  // disarmed before it came due
  EXPECT_EQ(q.run_due(5'000), 0u);
  q.arm(id, 6'000);
  now = 6'000;
  EXPECT_EQ(q.run_due(now), 1u);
  q.stop(id);
  EXPECT_EQ(q.active(), 0u);
}
