// TCP echo (RFC 862) on port 7: whatever a client sends comes back, and
// when it half-closes, so does the echo once everything went back.
// Configure with `ip=10.0.0.2/24 gw=10.0.0.1` (docs/net/README.md).
//
// It echoes without copying: the received bytes stay in the connection's
// receive buffer (auto_consume off) until write() has taken them, and are
// released with consumed(). A client that sends faster than it reads
// fills our send buffer; then we stop consuming, the window we advertise
// closes, and the client is slowed down instead of us buffering without
// bound (docs/net/tcp.md, "flow control the service controls").
//
//   qemu-system-x86_64 -M microvm -kernel tcp_echo -append "ip=10.0.0.2/24" \
//     -netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
//     -device virtio-net-device,netdev=n0
#include <cstdio>
#include <deque>
#include <memory>
#include <net/stack.hpp>
#include <os>

namespace {

constexpr uint16_t echo_port = 7;  // RFC 862

// One client: the received bytes not yet written back, in order.
struct Echo {
  net::TcpConnection connection;
  std::deque<std::span<const uint8_t>> pending;
  bool peer_done = false;

  // Writes what the send buffer takes; consumed() releases it. Stops at
  // the first short write and goes on from on_writable.
  void flush() {
    while (!pending.empty()) {
      auto written = connection.write(pending.front());
      if (!written) return;  // would_block: on_writable calls again
      connection.consumed(*written);
      pending.front() = pending.front().subspan(*written);
      if (!pending.front().empty()) return;
      pending.pop_front();
    }
    if (peer_done) connection.shutdown();
  }
};

}  // namespace

void Service::start() {
  net::Stack& stack = net::stack();
  net::TcpOptions options;
  options.auto_consume = false;
  options.no_delay = true;  // an echo answers each piece at once
  auto listening = stack.tcp().listen(
      echo_port,
      [](net::TcpConnection c) {
        auto echo = std::make_shared<Echo>(Echo{c, {}, false});
        c.on_read([echo](std::span<const uint8_t> data) {
          if (data.empty())
            echo->peer_done = true;
          else
            echo->pending.push_back(data);
          echo->flush();
        });
        c.on_writable([echo] { echo->flush(); });
        // The handlers share `echo`; the stack drops them when the connection
        // ends, and `echo` with them.
        c.on_close([echo](net::TcpCloseReason) { echo->pending.clear(); });
      },
      options);
  if (!listening) {
    std::printf("tcp_echo: cannot listen on port %u: %s\n", echo_port,
                net::to_string(listening.status));
    os::shutdown(1);
    return;
  }
  static net::TcpListener listener = *listening;
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    stack.interface(net::InterfaceId(i)).on_config([](net::Interface& nic) {
      std::printf("tcp_echo: %s %s listening on %s:%u\n", nic.nic().name().c_str(),
                  nic.mac().to_string().c_str(), nic.address().to_string().c_str(), echo_port);
    });
  }
}
