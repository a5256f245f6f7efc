// TCP echo (RFC 862) on port 7: whatever a client sends comes back, and
// when it half-closes, so does the echo once everything went back.
// Configure with `ip=10.0.0.2/24 gw=10.0.0.1` (docs/net/README.md).
//
// It echoes through a net::TcpStream (net/tcp_stream.hpp): write() takes
// all of a piece or none of it, and what the send buffer has no room for
// waits in the stream's bounded queue. When that queue is full the echo
// stops taking input: what the client sends stays in our receive buffer,
// the window we advertise closes, and the client is slowed down instead of
// us buffering without bound or dropping bytes (docs/net/tcp.md,
// "TcpStream"). When the queue has drained, reading resumes.
//
//   qemu-system-x86_64 -M microvm -kernel tcp_echo -append "ip=10.0.0.2/24" \
//     -netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
//     -device virtio-net-device,netdev=n0
#include <cstdio>
#include <net/stack.hpp>
#include <net/tcp_stream.hpp>
#include <os>

namespace {

constexpr uint16_t echo_port = 7;  // RFC 862

void echo(net::TcpConnection c) {
  auto opened = net::TcpStream::open(c);
  if (!opened) {
    c.abort();
    return;
  }
  // The handlers hold handles (weak): the stream lives as long as the
  // connection, and ends with it.
  net::TcpStream s = *opened;
  s.on_data([s](std::span<const uint8_t> data) mutable -> std::size_t {
    if (s.write(data) != net::Status::ok) return 0;  // the queue is full: pause
    return data.size();                              // released: the window opens
  });
  s.on_drain([s]() mutable { s.resume(); });
  // The client half-closed and everything went back: our FIN follows it.
  // One line per connection: what came in, and the longest segment (over
  // the MSS where the NIC takes segments the host coalesced).
  s.on_end([s](std::span<const uint8_t>) mutable {
    net::TcpStats stats = s.connection().stats();
    std::printf("tcp_echo: %llu bytes in, largest segment %u\n",
                static_cast<unsigned long long>(stats.bytes_received),
                stats.largest_segment_received);
    s.close();
  });
}

}  // namespace

void Service::start() {
  net::Stack& stack = net::stack();
  net::TcpOptions options;
  options.auto_consume = false;  // the stream releases input as it is echoed
  options.no_delay = true;       // an echo answers each piece at once
  auto listening = stack.tcp().listen(echo_port, echo, options);
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
