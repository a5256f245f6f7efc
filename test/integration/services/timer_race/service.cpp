// A 30 us periodic timer, 20,000 times: short enough that the timer often
// fires between arming it and halting. A lost wake-up would hang the VM.
#include <cstdio>
#include <os>

using namespace std::chrono_literals;

void Service::start() {
  static int ticks = 0;
  os::Timers::periodic(30us, [](os::Timers::id_t) {
    if (++ticks == 20000) {
      std::printf("20000 ticks\n");
      os::shutdown(0);
    }
  });
}
