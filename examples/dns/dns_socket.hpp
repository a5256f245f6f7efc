// The appliance's one contact with the network stack's socket API: a port
// of the stack API changes this file and dns_socket.cpp, nothing else.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <net/address.hpp>
#include <optional>
#include <span>
#include <string>

#include "keel/dns/rate_limiter.hpp"
#include "keel/dns/server.hpp"

namespace net {
class Stack;
}

namespace dns_app {

// Answers one query into `out`; returns the response size, 0 for none.
// Over TCP `transfer` is given: a zone transfer the query starts is left
// there, its first message in `out` (keel::dns::Server::answer).
using QueryHandler = std::function<std::size_t(
    std::span<const uint8_t> query, const keel::dns::ClientAddress& client, std::span<uint8_t> out,
    keel::dns::Transport transport, keel::dns::Transfer* transfer)>;

// DNS over TCP (RFC 7766): bounds on what clients may hold (docs/dns.md, "TCP").
struct TcpLimits {
  bool enabled = true;
  // A connection with no query for this long is closed (RFC 7766 §6.2.3).
  uint32_t idle_timeout_ms = 10'000;
  // Connections open at once, in all and from one client address; one over
  // either is reset at once and counted.
  uint32_t max_connections = 1000;
  uint32_t max_per_client = 32;
};

// What the TCP listener did (the stats line prints it).
struct TcpCounters {
  uint64_t accepted = 0;
  uint64_t open = 0;
  uint64_t refused_total = 0;       // over max_connections
  uint64_t refused_per_client = 0;  // over max_per_client
  uint64_t idle_closed = 0;
  uint64_t bad_messages = 0;  // a zero length or a message answered with nothing: closed
  uint64_t queries = 0;
  uint64_t paused = 0;             // reading paused until the peer took our answers
  uint64_t transfers = 0;          // zone transfers queued to the last message
  uint64_t transfer_messages = 0;  // their messages
  uint64_t transfer_waits = 0;     // times a transfer waited for the client to read
};

struct ListenOptions {
  uint16_t port = 53;
  // Only this IPv4 address of the host (host order, configured statically);
  // every address when empty.
  std::optional<uint32_t> address;
  TcpLimits tcp;
};

// Binds UDP and TCP `port` (on every address of the host, or on `address`)
// and answers every datagram and every TCP message through `handler`. `on_listening` runs with
// "10.0.0.2:53" when an interface has that address. Returns the number of
// interfaces, 0 if the port could not be bound (the reason is printed).
std::size_t listen(const ListenOptions& options, QueryHandler handler,
                   std::function<void(const std::string& where)> on_listening);

// The TCP listener alone on `stack` (listen() calls it with the image's;
// test/fuzz/dns_tcp_fuzz.cpp with an in-memory one); false if the port
// could not be bound (the reason is printed).
bool listen_tcp(net::Stack& stack, const ListenOptions& options,
                std::shared_ptr<QueryHandler> handler);
const TcpCounters& tcp_counters();

// Parses a dotted-quad IPv4 address to host order.
std::optional<uint32_t> parse_ipv4(std::string_view text);

// The client a query came from, as lib/dns names it (UDP and TCP alike).
inline keel::dns::ClientAddress client_of(const net::Endpoint& source) {
  if (source.address.is_ip4())
    return keel::dns::ClientAddress::ipv4(source.address.ip4().value, source.port);
  keel::dns::ClientAddress client;
  client.family = keel::dns::ClientAddress::Family::ipv6;
  client.bytes = source.address.ip6().bytes;
  client.port = source.port;
  return client;
}

}  // namespace dns_app
