// The stack's time (api/net/clock.hpp): protocols keep their deadlines,
// the stack asks its clock for one wake-up at the earliest of them, and a
// test drives it all by moving a ManualClock.
#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Clock;
constexpr uint64_t s = 1'000'000'000;

using ClockTest = StackTest;

TEST_F(ClockTest, NothingPendingNoWakeup) {
  EXPECT_EQ(stack.next_deadline(), Clock::never);
  EXPECT_EQ(clock.deadline(), Clock::never);
  advance(1h);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(ClockTest, OneWakeupAtTheEarliestDeadline) {
  // A fragment that never completes: reassembly gives up at 15 s.
  inject_ip(ip4(peer_ip, stack_ip, 17, pattern(16), {.id = 1, .fragment = 0x2000}));
  EXPECT_EQ(stack.next_deadline(), 15 * s);
  EXPECT_EQ(clock.deadline(), 15 * s);
  // An address to resolve at 3 s: ARP retries at 4 s.
  advance(3s);
  send(Ip{10, 0, 0, 77}, 9);
  EXPECT_EQ(stack.next_deadline(), 4 * s);
  EXPECT_EQ(clock.deadline(), 4 * s);
  advance(1s);
  EXPECT_EQ(link_counters().arp.tx_requests, 2u);
  EXPECT_EQ(clock.deadline(), 5 * s);
  advance(2s);  // the third request at 5 s, given up at 6 s
  EXPECT_EQ(link_counters().arp.drop_unresolved, 1u);
  EXPECT_EQ(stack.next_deadline(), 15 * s);
  EXPECT_EQ(clock.deadline(), 15 * s);
  advance(8999ms);
  EXPECT_EQ(counters().ip4.drop_fragment_timeout, 0u);
  advance(1ms);
  EXPECT_EQ(counters().ip4.drop_fragment_timeout, 1u);
  EXPECT_EQ(stack.next_deadline(), Clock::never);
}

// poll() early finds nothing due and changes nothing.
TEST_F(ClockTest, AnEarlyPollDoesNothing) {
  send(Ip{10, 0, 0, 77}, 9);
  stack.poll();
  stack.poll();
  EXPECT_EQ(link_counters().arp.tx_requests, 1u);
  EXPECT_EQ(stack.next_deadline(), 1 * s);
  EXPECT_EQ(clock.deadline(), 1 * s);
}

TEST(ClockStack, ADestroyedStackCancelsItsWakeup) {
  ManualClock clock;
  ::net::MemoryNic nic(stack_mac);
  {
    ::net::Stack stack(clock, test_stack_config());
    stack.add_interface(nic).configure(stack_ip, ::net::ip4::netmask_of(24));
    auto socket = *stack.udp().bind(0);
    socket.send_to({Ip{10, 0, 0, 77}, 9}, "x", 1);
    EXPECT_EQ(clock.deadline(), 1 * s);
  }
  EXPECT_EQ(clock.deadline(), Clock::never);
  clock.advance(10s);  // no stack to wake: nothing runs
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
  EXPECT_FALSE(nic.inject(Bytes(60)));  // and the NIC no longer delivers to it
}

}  // namespace
}  // namespace keel::test
