// Prints, then never returns to the event loop: the line must still reach
// the console.
#include <cstdio>
#include <os>

void Service::start() {
  std::printf("spinning forever\n");
  for (volatile int forever = 1; forever;) {
  }
}
