#include "timer_queue.hpp"

#include <utility>

namespace keel::kernel {

// Ids wrap after 2^32 timers; a long-lived timer may still hold the next one.
TimerQueue::id_t TimerQueue::unused_id() {
  for (;;) {
    id_t id = next_id_++;
    if (id != os::Timers::invalid_id && !timers_.contains(id)) return id;
  }
}

TimerQueue::id_t TimerQueue::add(uint64_t deadline_ns, uint64_t period_ns,
                                 os::Timers::handler_t handler) {
  id_t id = unused_id();
  timers_.emplace(id, Timer{deadline_ns, period_ns, std::move(handler)});
  queue_.push({deadline_ns, id});
  return id;
}

TimerQueue::id_t TimerQueue::create(os::Timers::handler_t handler) {
  id_t id = unused_id();
  timers_.emplace(id, Timer{no_deadline, 0, std::move(handler), true});
  return id;
}

void TimerQueue::arm(id_t id, uint64_t deadline_ns) {
  auto it = timers_.find(id);
  if (it == timers_.end() || !it->second.persistent) return;
  it->second.deadline_ns = deadline_ns;
  // The old heap entry, if any, is now stale: its deadline no longer matches.
  if (deadline_ns != no_deadline) queue_.push({deadline_ns, id});
  compact_if_mostly_stale();
}

void TimerQueue::stop(id_t id) {
  timers_.erase(id);
  compact_if_mostly_stale();
}

// A stopped timer's entry stays in the heap until it reaches the top. A
// service that re-arms a long timeout per packet would pile them up, so
// rebuild the heap from the live timers once stale entries dominate.
void TimerQueue::compact_if_mostly_stale() {
  constexpr std::size_t slack = 64;
  if (queue_.size() <= 2 * timers_.size() + slack) return;
  std::vector<Entry> live;
  live.reserve(timers_.size());
  for (const auto& [id, timer] : timers_)
    if (timer.deadline_ns != no_deadline) live.push_back({timer.deadline_ns, id});
  queue_ = decltype(queue_)(std::greater<Entry>(), std::move(live));
}

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
    // The handler may stop its own timer (destroying it) or add others, so
    // it runs from a copy, after the queue is already consistent.
    auto handler = timer.handler;
    if (timer.persistent) {
      timer.deadline_ns = no_deadline;
    } else if (timer.period_ns == 0) {
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
