// The appliance's one contact with the network stack's socket API: a port
// of the stack API changes this file and dns_socket.cpp, nothing else.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "keel/dns/rate_limiter.hpp"

namespace dns_app {

// Answers one query into `out`; returns the response size, 0 for none.
using QueryHandler =
    std::function<std::size_t(std::span<const uint8_t> query,
                              const keel::dns::ClientAddress& client, std::span<uint8_t> out)>;

struct ListenOptions {
  uint16_t port = 53;
  // Only this IPv4 address of the host (host order, configured statically);
  // every address when empty.
  std::optional<uint32_t> address;
};

// Binds UDP `port` (on every address of the host, or on `address`) and
// answers every datagram through `handler`. `on_listening` runs with
// "10.0.0.2:53" when an interface has that address. Returns the number of
// interfaces, 0 if the port could not be bound (the reason is printed).
std::size_t listen(const ListenOptions& options, QueryHandler handler,
                   std::function<void(const std::string& where)> on_listening);

// Parses a dotted-quad IPv4 address to host order.
std::optional<uint32_t> parse_ipv4(std::string_view text);

}  // namespace dns_app
