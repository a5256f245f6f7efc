// A 1 s timer, so the host can check the guest's clock against its own.
#include <cstdio>
#include <os>

using namespace std::chrono_literals;

void Service::start() {
  std::printf("start\n");
  os::Timers::oneshot(1s, [](auto) {
    std::printf("done after %lld ms of guest time\n",
                static_cast<long long>(os::uptime().count() / 1'000'000));
    os::shutdown(0);
  });
}
