// Throws an exception nobody catches: std::terminate must panic naming it.
#include <cstdio>
#include <os>
#include <stdexcept>

void Service::start() {
  std::printf("about to throw\n");
  throw std::logic_error("nobody catches this");
}
