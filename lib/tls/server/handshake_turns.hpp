// Sessions waiting for their handshake turn (decision 0107). A handshake flight costs
// milliseconds of public-key work (10 ms and more under TCG); run as input arrives, a burst
// of new connections would hold every open connection's request behind all of their flights.
// Queued instead, one session's input is handled per turn, and the event loop serves what
// else arrived between two turns.
#pragma once
#include <cstddef>
#include <deque>
#include <functional>

namespace keel::tls {

class HandshakeTurns {
 public:
  // A waiting session's turn: false when it no longer needs one (it ended meanwhile), so the
  // next session's runs in its place.
  using Turn = std::function<bool()>;

  void pace(std::function<void()> wake) { wake_ = std::move(wake); }
  bool paced() const { return bool(wake_); }
  // Queues a turn (a session queues at most one at a time, so the queue is bounded by the
  // sessions); asks for a run when it was the first.
  void wait(Turn turn);
  // Runs turns until one was used, or none is left; true (and asks for another run) while
  // some wait.
  bool run_one();
  std::size_t waiting() const { return queue_.size(); }

 private:
  std::deque<Turn> queue_;
  std::function<void()> wake_;
};

}  // namespace keel::tls
