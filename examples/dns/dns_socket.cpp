// UDP on Keel's per-interface stacks (docs/net/README.md).
#include "dns_socket.hpp"

#include <array>
#include <memory>
#include <net/interfaces.hpp>

namespace dns_app {
namespace {
// Responses are written here and copied out by sendto: one at a time, from the event loop.
std::array<uint8_t, 65535> response;
}  // namespace

std::optional<uint32_t> parse_ipv4(std::string_view text) {
  auto addr = net::ip4::Addr::parse(text);
  if (!addr) return std::nullopt;
  return addr->value;
}

std::size_t listen(const ListenOptions& options, QueryHandler handler,
                   std::function<void(const std::string& where)> on_listening) {
  auto shared = std::make_shared<QueryHandler>(std::move(handler));
  std::size_t bound = 0;
  for (std::size_t i = 0; i < net::Interfaces::count(); ++i) {
    net::Inet& stack = net::Interfaces::get(i);
    if (options.address && stack.is_configured() && stack.address().value != *options.address)
      continue;
    net::UdpSocket& socket = stack.udp().bind(options.port);
    socket.on_read(
        [&socket, shared](net::ip4::Addr src, uint16_t sport, const char* data, std::size_t len) {
          const auto client = keel::dns::ClientAddress::ipv4(src.value, sport);
          const std::span<const uint8_t> query(reinterpret_cast<const uint8_t*>(data), len);
          const std::size_t size = (*shared)(query, client, response);
          if (size != 0) socket.sendto(src, sport, response.data(), size);
        });
    stack.on_config([port = options.port, on_listening](net::Inet& s) {
      on_listening(s.address().to_string() + ":" + std::to_string(port));
    });
    ++bound;
  }
  return bound;
}

}  // namespace dns_app
