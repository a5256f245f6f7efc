// Waits on a 60 s timer and nothing else: the CPU must halt meanwhile.
#include <cstdio>
#include <os>

using namespace std::chrono_literals;

void Service::start() {
  os::Timers::oneshot(60s, [](auto) { os::shutdown(0); });
  std::printf("idle: waiting 60 s\n");
}
