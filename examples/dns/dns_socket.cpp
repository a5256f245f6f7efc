// UDP on Keel's host stack (docs/net/README.md): one socket for every address
// of the host, or for the one configured; replies go out from the address
// the query came to. TCP on the same address and port: dns_tcp.cpp.
#include "dns_socket.hpp"

#include <array>
#include <cstdio>
#include <memory>
#include <net/stack.hpp>

namespace dns_app {
namespace {

// Responses are written here and copied out by send_to: one at a time, from the event loop.
std::array<uint8_t, 65535> response;

}  // namespace

std::optional<uint32_t> parse_ipv4(std::string_view text) {
  auto addr = net::ip4::Addr::parse(text);
  if (!addr) return std::nullopt;
  return addr->value;
}

std::size_t listen(const ListenOptions& options, QueryHandler handler,
                   std::function<void(const std::string& where)> on_listening) {
  net::Stack& stack = net::stack();
  const net::ip4::Addr address =
      options.address ? net::ip4::Addr(*options.address) : net::ip4::Addr{};
  auto bound = stack.udp().bind(net::Endpoint{address, options.port});
  if (!bound) {
    std::printf("dns: cannot listen on %s:%u: %s\n", address.to_string().c_str(), options.port,
                net::to_string(bound.status));
    return 0;
  }
  auto shared = std::make_shared<QueryHandler>(std::move(handler));
  net::UdpSocket socket = *bound;
  socket.on_read([socket, shared](const net::UdpDatagram& d) mutable {
    const std::size_t size =
        (*shared)(d.payload, client_of(d.source), response, keel::dns::Transport::udp, nullptr);
    if (size != 0) socket.send_to(d.source, {response.data(), size}, d.destination.address);
  });
  if (options.tcp.enabled && !listen_tcp(stack, options, shared)) return 0;
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    stack.interface(net::InterfaceId(i))
        .on_config([address, port = options.port, on_listening](net::Interface& nic) {
          if (address.is_any() || nic.address() == address) {
            on_listening(nic.address().to_string() + ":" + std::to_string(port));
          }
        });
  }
  return stack.interface_count();
}

}  // namespace dns_app
