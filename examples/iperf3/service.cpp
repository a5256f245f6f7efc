// A server the standard iperf3 client measures (`iperf3 -c ADDR`, with -R
// for the reverse direction and -P N for parallel streams), speaking
// iperf3's control protocol (protocol.hpp) on port 5201. One test at a
// time, TCP only; the -R streams send from one shared block without
// copying it (zero-copy writes). Configure with `ip=10.0.0.2/24`.
#include <cstdio>
#include <memory>
#include <net/stack.hpp>
#include <os>

#include "protocol.hpp"
#include "session.hpp"

namespace {

std::shared_ptr<iperf3::Session> current;

// A new connection: its first 37 bytes (the cookie) say whether it opens
// a test or is a data stream of the running one.
void on_connection(net::TcpConnection c) {
  auto cookie = std::make_shared<std::string>();
  c.on_read([c, cookie](std::span<const uint8_t> data) mutable {
    if (data.empty()) {
      c.close();
      return;
    }
    std::size_t take = std::min(iperf3::cookie_size - cookie->size(), data.size());
    cookie->append(reinterpret_cast<const char*>(data.data()), take);
    if (cookie->size() < iperf3::cookie_size) return;
    auto rest = data.subspan(take);
    if (current && !current->finished() && current->takes_streams() &&
        *cookie == current->cookie()) {
      current->add_stream(c);  // replaces this handler
      return;
    }
    if (current && !current->finished()) {
      auto denied = uint8_t(iperf3::access_denied);  // a test is running
      c.write(&denied, 1);
      c.close();
      return;
    }
    current = std::make_shared<iperf3::Session>(c, *cookie);
    current->begin(rest);
  });
}

}  // namespace

void Service::start() {
  net::Stack& stack = net::stack();
  net::TcpOptions options;
  options.send_buffer = 1 << 20;
  options.receive_buffer = 1 << 20;
  options.no_delay = true;  // control messages are small and awaited
  auto listening = stack.tcp().listen(iperf3::port, on_connection, options);
  if (!listening) {
    std::printf("iperf3: cannot listen on port %u: %s\n", iperf3::port,
                net::to_string(listening.status));
    os::shutdown(1);
    return;
  }
  static net::TcpListener listener = *listening;
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    stack.interface(net::InterfaceId(i)).on_config([](net::Interface& nic) {
      std::printf("iperf3: %s listening on %s:%u\n", nic.nic().name().c_str(),
                  nic.address().to_string().c_str(), iperf3::port);
    });
  }
}
