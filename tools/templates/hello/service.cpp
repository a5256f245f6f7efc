// @NAME@: a Keel service. Service::start() runs once the OS is up and
// returns; the work happens in handlers the event loop calls (here one
// timer). docs/guide.md has the API.
#include <cstdio>
#include <os>

using namespace std::chrono_literals;

void Service::start() {
  std::printf("@NAME@: hello from Keel, with %zu argument(s)\n", os::args().size());
  os::Timers::oneshot(100ms, [](os::Timers::id_t) { os::shutdown(0); });
}
