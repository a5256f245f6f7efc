// Calls abort() from a named function: the panic's backtrace must reach it
// through the system call that abort() makes.
#include <cstdio>
#include <cstdlib>
#include <os>

[[gnu::noinline]] void helper_that_aborts() {
  std::printf("about to abort\n");
  std::abort();
}

void Service::start() { helper_that_aborts(); }
