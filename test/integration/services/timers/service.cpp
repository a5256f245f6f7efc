// Exercises os::Timers: ordering, periodic, stop, and that time advances.
#include <cstdio>
#include <os>

using namespace std::chrono_literals;
using os::Timers;

static long long ms_since(std::chrono::nanoseconds start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(os::uptime() - start).count();
}

// When each timer was set, so the test knows every deadline: a host that stalls the guest
// between two of these calls moves the later timers' deadlines (and so their order) with it.
static void registered(const char* name, std::chrono::nanoseconds start) {
  std::printf(
      "registered %s at %lld us\n", name,
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::microseconds>(os::uptime() - start).count()));
}

void Service::start() {
  auto start = os::uptime();
  registered("oneshot 30ms", start);
  Timers::oneshot(30ms,
                  [start](auto) { std::printf("oneshot 30ms at %lld ms\n", ms_since(start)); });
  registered("oneshot 10ms", start);
  Timers::oneshot(10ms,
                  [start](auto) { std::printf("oneshot 10ms at %lld ms\n", ms_since(start)); });
  auto never = Timers::oneshot(20ms, [](auto) { std::printf("stopped timer ran\n"); });
  Timers::stop(never);
  static int ticks = 0;
  registered("periodic", start);
  Timers::periodic(15ms, 15ms, [start](Timers::id_t id) {
    std::printf("periodic tick %d at %lld ms\n", ++ticks, ms_since(start));
    if (ticks == 3) {
      Timers::stop(id);
      Timers::oneshot(5ms, [start](auto) {
        std::printf("active timers: %zu\n", Timers::active());
        std::printf("done at %lld ms\n", ms_since(start));
        os::shutdown(7);
      });
    }
  });
}
