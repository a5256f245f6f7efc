// What the fuzz targets that run two stacks in memory share: an invariant
// check that aborts (libFuzzer reports the input), and one side of the
// pair, a stack on a MemoryNic with its own manual clock.
#pragma once
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <net/stack.hpp>
#include <vector>

#include "manual_clock.hpp"
#include "memory_nic.hpp"

namespace keel::fuzz {

inline void check_at(const char* target, bool ok, int line) {
  if (ok) return;
  std::fprintf(stderr, "%s: invariant at line %d broken\n", target, line);
  std::abort();
}

struct StackSide {
  StackSide(net::ethernet::Addr mac, net::ip4::Addr address) : nic(mac), stack(clock, config()) {
    stack.add_interface(nic).configure(address, net::ip4::netmask_of(24), {});
  }
  static net::StackConfig config() {
    net::StackConfig c;
    c.total_memory = std::size_t(16) << 20;
    return c;
  }
  keel::test::ManualClock clock;
  net::MemoryNic nic;
  net::Stack stack;
};

// One millisecond of the pair: what each side sent arrives at the other
// after both clocks (and whatever `also` moves: the OS timers) advanced.
template <class Also>
void one_millisecond(StackSide& a, StackSide& b, Also&& also) {
  std::vector<std::vector<uint8_t>> to_a, to_b;
  while (!b.nic.transmitted.empty()) to_a.push_back(b.nic.pop());
  while (!a.nic.transmitted.empty()) to_b.push_back(a.nic.pop());
  a.clock.advance(std::chrono::milliseconds(1));
  b.clock.advance(std::chrono::milliseconds(1));
  also();
  for (auto& f : to_a) a.nic.inject(f);
  for (auto& f : to_b) b.nic.inject(f);
}

}  // namespace keel::fuzz
