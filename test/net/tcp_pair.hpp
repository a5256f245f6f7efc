// Two Keel stacks joined by a clean in-memory link (1 ms each way), each
// on a clock the test moves: a client (10.0.0.1) and a server (10.0.0.2)
// for tests of services over TCP. tcp_end_to_end_test.cpp has the lossy
// version of the link.
#pragma once
#include <chrono>
#include <deque>
#include <functional>

#include "memory_nic.hpp"
#include "stack_fixture.hpp"

namespace keel::test {

class TcpPair {
 public:
  static constexpr uint64_t step_ns = 1'000'000;  // the link's delay and the loop's step

  struct Side {
    Side(Mac mac, Ip address) : nic(mac), stack(clock, test_stack_config()) {
      stack.add_interface(nic).configure(address, ::net::ip4::netmask_of(24), Ip{});
      // Each frame delivered is followed by the event loop's step (handlers).
      nic.set_after_receive([this] { clock.advance(std::chrono::nanoseconds(0)); });
    }
    ManualClock clock;
    ::net::MemoryNic nic;
    ::net::Stack stack;
  };

  Side client{Mac{{2, 0, 0, 0, 0, 1}}, Ip{10, 0, 0, 1}};
  Side server{Mac{{2, 0, 0, 0, 0, 2}}, Ip{10, 0, 0, 2}};
  const ::net::Endpoint server_endpoint(uint16_t port) const { return {Ip{10, 0, 0, 2}, port}; }

  // One step: frames sent during the last one arrive, both clocks move.
  void step() {
    std::deque<Bytes> to_server, to_client;
    while (!client.nic.transmitted.empty()) to_server.push_back(client.nic.pop());
    while (!server.nic.transmitted.empty()) to_client.push_back(server.nic.pop());
    client.clock.advance(std::chrono::nanoseconds(step_ns));
    server.clock.advance(std::chrono::nanoseconds(step_ns));
    for (Bytes& f : to_server) server.nic.inject(f);
    for (Bytes& f : to_client) client.nic.inject(f);
  }
  // Steps until `done` (true) or `limit` of simulated time (false).
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::seconds(60)) {
    for (int64_t ms = 0; ms < limit.count(); ++ms) {
      if (done()) return true;
      step();
    }
    return done();
  }
  void run_for(std::chrono::milliseconds time) {
    run_until([] { return false; }, time);
  }
};

}  // namespace keel::test
