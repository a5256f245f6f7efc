// UDP echo on port 7 that floods the console on demand: the datagram
// "flood" starts printing 1,000 lines every 10 ms (6 MB/s, far more than a
// serial port under TCG takes), "stop" ends it. test_console_held.py checks
// that echoes keep coming back meanwhile and that the console reports its
// drops. "say TEXT" prints TEXT (test_syslog.py).
#include <chrono>
#include <cstdio>
#include <net/stack.hpp>
#include <os>
#include <string_view>

namespace {
constexpr uint16_t echo_port = 7;
constexpr int lines_per_tick = 1000;
constexpr auto tick = std::chrono::milliseconds(10);
os::Timers::id_t flood = 0;
bool flooding = false;
int ticks = 0;

void start_flood() {
  if (flooding) return;
  flooding = true;
  flood = os::Timers::periodic(tick, tick, [](os::Timers::id_t) {
    ++ticks;
    for (int i = 0; i < lines_per_tick; ++i)
      std::printf("flood tick %06d line %04d: the service prints faster than the port\n", ticks, i);
  });
}
}  // namespace

void Service::start() {
  net::Stack& stack = net::stack();
  auto bound = stack.udp().bind(echo_port);
  if (!bound) {
    std::printf("console_flood_echo: cannot bind: %s\n", net::to_string(bound.status));
    os::shutdown(1);
    return;
  }
  net::UdpSocket socket = *bound;
  socket.on_read([socket](const net::UdpDatagram& d) mutable {
    std::string_view text(reinterpret_cast<const char*>(d.payload.data()), d.payload.size());
    if (text == "flood") start_flood();
    if (text.starts_with("say ")) std::printf("%.*s\n", int(text.size() - 4), text.data() + 4);
    if (text == "stop" && flooding) {
      os::Timers::stop(flood);
      flooding = false;
    }
    socket.send_to(d.source, d.payload, d.destination.address);
  });
  stack.interface(net::InterfaceId(0)).on_config([](net::Interface& nic) {
    std::printf("console_flood_echo: listening on %s:%u\n", nic.address().to_string().c_str(),
                echo_port);
  });
}
