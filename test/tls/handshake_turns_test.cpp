// HandshakeTurns (lib/tls/server/handshake_turns.hpp): one session's handshake input per turn,
// in the order they queued; a session that ended while it waited gives its turn to the next;
// a run is asked for exactly while some wait.
#include "../../lib/tls/server/handshake_turns.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using keel::tls::HandshakeTurns;

struct Paced {
  HandshakeTurns turns;
  int wakes = 0;
  std::string ran;
  Paced() {
    turns.pace([this] { ++wakes; });
  }
  // A session's turn; `alive` false: it ended while it waited.
  HandshakeTurns::Turn turn(char name, bool alive = true) {
    return [this, name, alive] {
      if (alive) ran += name;
      return alive;
    };
  }
};

TEST(HandshakeTurns, UnpacedUntilAWakeIsSet) {
  HandshakeTurns turns;
  EXPECT_FALSE(turns.paced());
  EXPECT_FALSE(turns.run_one());
}

TEST(HandshakeTurns, OneTurnPerRunInArrivalOrder) {
  Paced p;
  p.turns.wait(p.turn('a'));
  EXPECT_EQ(p.wakes, 1);  // the first to wait asks for a run
  p.turns.wait(p.turn('b'));
  p.turns.wait(p.turn('c'));
  EXPECT_EQ(p.wakes, 1);  // one run asked for is enough
  EXPECT_TRUE(p.turns.run_one());
  EXPECT_EQ(p.ran, "a");
  EXPECT_EQ(p.wakes, 2);  // others wait: asks again
  EXPECT_TRUE(p.turns.run_one());
  EXPECT_FALSE(p.turns.run_one());
  EXPECT_EQ(p.ran, "abc");
  EXPECT_EQ(p.wakes, 3);  // none after the last
  EXPECT_EQ(p.turns.waiting(), 0u);
}

TEST(HandshakeTurns, AnEndedSessionsTurnGoesToTheNext) {
  Paced p;
  p.turns.wait(p.turn('a', false));
  p.turns.wait(p.turn('b', false));
  p.turns.wait(p.turn('c'));
  p.turns.wait(p.turn('d'));
  EXPECT_TRUE(p.turns.run_one());
  EXPECT_EQ(p.ran, "c");
  EXPECT_FALSE(p.turns.run_one());
  EXPECT_EQ(p.ran, "cd");
}

TEST(HandshakeTurns, OnlyEndedSessionsLeaveNothingToAskFor) {
  Paced p;
  p.turns.wait(p.turn('a', false));
  EXPECT_FALSE(p.turns.run_one());
  EXPECT_EQ(p.ran, "");
  EXPECT_EQ(p.wakes, 1);
}

TEST(HandshakeTurns, ATurnMayQueueAgain) {
  Paced p;
  // A session whose input came in pieces waits again for its next piece's turn.
  p.turns.wait([&p] {
    p.ran += 'a';
    p.turns.wait(p.turn('A'));
    return true;
  });
  p.turns.wait(p.turn('b'));
  EXPECT_TRUE(p.turns.run_one());
  EXPECT_TRUE(p.turns.run_one());
  EXPECT_FALSE(p.turns.run_one());
  EXPECT_EQ(p.ran, "abA");
}

}  // namespace
