// An exception thrown through code built without unwind tables (as lib/dns
// and examples/dns are in images, decision 0150) ends in a panic whose
// backtrace goes on through that code by its frame pointers.
#include <cstdio>
#include <os>
#include <stdexcept>

#include "without_tables.hpp"

// Built with tables, like libstdc++'s functions that throw.
[[gnu::noinline]] void throw_from_a_library() {
  throw std::runtime_error("thrown through frames without unwind tables");
}

void Service::start() {
  std::printf("about to throw\n");
  caller_without_tables();
  std::printf("not reached\n");  // a call, not a jump: Service::start stays on the stack
}
