// Query logging kept off the answer path (IncludeOS' DNS appliance capped at
// ~900 queries/s writing each query to the serial port): the server's
// observer formats one line into a fixed ring; a timer moves what is there
// to the console in bounded chunks. When the ring is full, lines are dropped
// and counted, never waited for.
#pragma once
#include <cstddef>
#include <cstdint>

#include "keel/dns/server.hpp"

namespace dns_app {

class QueryLog {
 public:
  static constexpr std::size_t capacity = 64 * 1024;
  static constexpr std::size_t max_line = 320;

  // Starts the timer that drains the ring.
  void start();
  // A keel::dns::QueryObserver; `self` is the QueryLog.
  static void observe(void* self, const keel::dns::QueryEvent& event);
  uint64_t dropped() const { return dropped_; }

 private:
  void record(const keel::dns::QueryEvent& event);
  void drain();

  char ring_[capacity];
  std::size_t head_ = 0;  // next byte to write to the console
  std::size_t used_ = 0;
  uint64_t dropped_ = 0;
  uint64_t reported_dropped_ = 0;
};

}  // namespace dns_app
