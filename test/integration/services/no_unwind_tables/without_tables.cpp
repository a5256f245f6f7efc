// Compiled with -fno-exceptions -fno-asynchronous-unwind-tables
// (CMakeLists.txt): the unwinder knows nothing of these two frames.
#include "without_tables.hpp"

#include <cstdio>

namespace {

int calls = 0;

[[gnu::noinline]] void callee_without_tables() {
  throw_from_a_library();
  std::printf("not reached: %d\n", ++calls);  // the call above is not the last instruction
}

}  // namespace

void caller_without_tables() {
  callee_without_tables();
  std::printf("not reached either: %d\n", ++calls);
}
