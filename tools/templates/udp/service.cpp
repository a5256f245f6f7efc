// @NAME@: answers each UDP datagram on port 7000 with "@NAME@: " and the
// datagram. The interface is configured from the command line (ip=dhcp,
// which `keel run` passes, or ip=10.0.0.2/24 gw=10.0.0.1); docs/net/README.md
// has the stack's API.
#include <cstdio>
#include <net/stack.hpp>
#include <os>
#include <string>

namespace {
constexpr uint16_t port = 7000;
}

void Service::start() {
  net::Stack& stack = net::stack();  // stops the image with a message if it has no NIC
  auto bound = stack.udp().bind(port);
  if (!bound) {
    std::printf("@NAME@: cannot bind port %u: %s\n", port, net::to_string(bound.status));
    os::shutdown(1);
    return;
  }
  net::UdpSocket socket = *bound;
  socket.on_read([socket](const net::UdpDatagram& d) mutable {
    std::string answer = "@NAME@: ";
    answer.append(reinterpret_cast<const char*>(d.payload.data()), d.payload.size());
    // From the address it came to, so the peer recognizes the answer.
    socket.send_to(d.source, answer.data(), answer.size(), d.destination.address);
  });
  stack.interface(0).on_config([](net::Interface& nic) {
    std::printf("@NAME@: listening on %s:%u/udp\n", nic.address().to_string().c_str(), port);
  });
}
