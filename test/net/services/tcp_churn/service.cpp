// A server that closes first, for connection churn (test/net/test_tcp_churn.py):
// on port 80 it echoes what a client sends and closes at once, so every
// connection leaves a TIME_WAIT here. UDP port 9 answers any datagram with
// what TCP holds: "connections N time_waits_recycled R memory M heap H"
// (H: the bytes the process's heap holds, as glibc counts them; 0 in an
// image).
#include <chrono>
#include <cstdio>
#include <net/stack.hpp>
#include <os>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

constexpr uint16_t churn_port = 80, stats_port = 9;

std::size_t heap_in_use() {
#if defined(__GLIBC__)
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#else
  return 0;
#endif
}

}  // namespace

void Service::start() {
  net::Stack& stack = net::stack();
  // As in a 64 MiB image (one connection per 4 KiB; a Linux process is
  // sized from the host's memory), and 2·MSL shortened to 1 s: TIME_WAITs
  // end by their own deadline long before the table fills, the case that
  // leaked (issue 18), and memory reaches its steady state in seconds.
  net::Tcp::Limits limits = stack.tcp().limits();
  limits.max_connections = 16384;
  limits.time_wait = std::chrono::seconds(1);
  stack.tcp().set_limits(limits);
  auto listening = stack.tcp().listen(churn_port, [](net::TcpConnection c) {
    c.on_read([c](std::span<const uint8_t> data) mutable {
      if (!data.empty()) c.write(data);  // a few bytes: the send buffer takes them
      c.close();                         // first: the TIME_WAIT is ours
    });
  });
  auto stats = stack.udp().bind(stats_port);
  if (!listening || !stats) {
    std::printf("tcp_churn: cannot listen\n");
    os::shutdown(1);
    return;
  }
  static net::TcpListener listener = *listening;
  static net::UdpSocket socket = *stats;
  socket.on_read([](const net::UdpDatagram& d) {
    net::Tcp& tcp = net::stack().tcp();
    std::string line = "connections " + std::to_string(tcp.connections()) +
                       " time_waits_recycled " + std::to_string(tcp.counters().time_wait_recycled) +
                       " memory " + std::to_string(tcp.memory_used()) + " heap " +
                       std::to_string(heap_in_use());
    socket.send_to(d.source, line.data(), line.size());
  });
  stack.interface(0).on_config([](net::Interface& i) {
    std::printf("tcp_churn: listening on %s:%u\n", i.address().to_string().c_str(), churn_port);
  });
}
