// A queue of deadlines: the portable core of os::Timers, tested on the host.
#pragma once
#include <cstdint>
#include <kernel/timers.hpp>
#include <queue>
#include <unordered_map>
#include <vector>

namespace keel::kernel {

class TimerQueue {
 public:
  using id_t = os::Timers::id_t;
  static constexpr uint64_t no_deadline = UINT64_MAX;

  // `first_id` lets tests start near the wrap-around of ids.
  explicit TimerQueue(id_t first_id = 1) : next_id_(first_id) {}

  id_t add(uint64_t deadline_ns, uint64_t period_ns, os::Timers::handler_t handler);
  // A timer that stays until stopped, unarmed until arm().
  id_t create(os::Timers::handler_t handler);
  void arm(id_t id, uint64_t deadline_ns);  // no_deadline disarms
  void stop(id_t id);
  // Runs every handler whose deadline is <= now_ns, re-arming periodic ones.
  // Returns how many ran.
  std::size_t run_due(uint64_t now_ns);
  uint64_t next_deadline();
  std::size_t active() const { return timers_.size(); }
  void restart_ids_for_tests(id_t next) { next_id_ = next; }
  // Heap entries, stale ones included: bounded by a small multiple of active().
  std::size_t queued_entries() const { return queue_.size(); }

 private:
  struct Timer {
    uint64_t deadline_ns;
    uint64_t period_ns;  // 0 for one-shot
    os::Timers::handler_t handler;
    bool persistent = false;  // created: stays (unarmed) after it runs
  };
  struct Entry {
    uint64_t deadline_ns;
    id_t id;
    bool operator>(const Entry& other) const {
      // Equal deadlines run in the order they were added.
      return deadline_ns != other.deadline_ns ? deadline_ns > other.deadline_ns : id > other.id;
    }
  };
  void drop_stale_entries();
  id_t unused_id();
  void compact_if_mostly_stale();

  // Stopped timers leave their heap entry behind; it is skipped when popped
  // because its id is gone or its deadline no longer matches.
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue_;
  std::unordered_map<id_t, Timer> timers_;
  id_t next_id_ = 1;
};

}  // namespace keel::kernel
