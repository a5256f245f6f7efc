#include "timer_queue.hpp"

#include <utility>

namespace keel::kernel {

TimerQueue::id_t TimerQueue::add(uint64_t deadline_ns, uint64_t period_ns,
                                 os::Timers::handler_t handler) {
  id_t id = next_id_++;
  if (next_id_ == os::Timers::invalid_id) next_id_ = 1;
  timers_.emplace(id, Timer{deadline_ns, period_ns, std::move(handler)});
  queue_.push({deadline_ns, id});
  return id;
}

void TimerQueue::stop(id_t id) { timers_.erase(id); }

void TimerQueue::drop_stale_entries() {
  while (!queue_.empty()) {
    auto it = timers_.find(queue_.top().id);
    if (it != timers_.end() && it->second.deadline_ns == queue_.top().deadline_ns) return;
    queue_.pop();
  }
}

uint64_t TimerQueue::next_deadline() {
  drop_stale_entries();
  return queue_.empty() ? no_deadline : queue_.top().deadline_ns;
}

std::size_t TimerQueue::run_due(uint64_t now_ns) {
  std::size_t ran = 0;
  while (next_deadline() <= now_ns) {
    Entry entry = queue_.top();
    queue_.pop();
    Timer& timer = timers_.at(entry.id);
    // The handler may stop its own timer or add others, so keep a copy of it
    // and re-look the timer up afterwards.
    auto handler = timer.handler;
    if (timer.period_ns == 0) {
      timers_.erase(entry.id);
    } else {
      // Catch up from the old deadline, not from now, so periods don't drift;
      // but never schedule into the past after a long stall.
      uint64_t next = entry.deadline_ns + timer.period_ns;
      timer.deadline_ns = next > now_ns ? next : now_ns + timer.period_ns;
      queue_.push({timer.deadline_ns, entry.id});
    }
    handler(entry.id);
    ++ran;
  }
  return ran;
}

}  // namespace keel::kernel
