#include "handshake_turns.hpp"

namespace keel::tls {

void HandshakeTurns::wait(Turn turn) {
  queue_.push_back(std::move(turn));
  if (queue_.size() == 1 && wake_) wake_();
}

bool HandshakeTurns::run_one() {
  while (!queue_.empty()) {
    Turn turn = std::move(queue_.front());
    queue_.pop_front();
    if (turn()) break;
  }
  if (queue_.empty()) return false;
  if (wake_) wake_();
  return true;
}

}  // namespace keel::tls
