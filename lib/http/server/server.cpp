// The server: routes, the listener and its connection limit, and one clock
// wake-up for the earliest of all connections' deadlines.
#include <utility>

#include "connection.hpp"

namespace keel::http {

using server_detail::Connection;

Server::Impl::Impl(ServerTime t, ServerOptions o) : time(std::move(t)), options(std::move(o)) {
  options.tcp.auto_consume = false;  // the stream releases input as it parses
  time.clock->set_wakeup([this] { on_wakeup(); });
}

Server::Impl::~Impl() {
  for (auto& l : listeners) l.close();
  while (!connections.empty()) (*connections.begin())->abort();  // erases itself
  time.clock->wake_at(net::Clock::never);
  time.clock->set_wakeup({});
}

void Server::Impl::arm(Connection* c, uint64_t when) {
  if (c->deadline != 0) deadlines.erase({c->deadline, c});
  c->deadline = when == 0 ? 1 : when;
  deadlines.insert({c->deadline, c});
  rearm_clock();
}

void Server::Impl::disarm(Connection* c) {
  if (c->deadline == 0) return;
  deadlines.erase({c->deadline, c});
  c->deadline = 0;
  rearm_clock();
}

void Server::Impl::rearm_clock() {
  const uint64_t next = deadlines.empty() ? net::Clock::never : deadlines.begin()->first;
  if (next != armed_for) {
    armed_for = next;
    time.clock->wake_at(next);
  }
}

void Server::Impl::on_wakeup() {
  armed_for = net::Clock::never;  // the wake-up is spent
  const uint64_t now_ns = now();
  while (!deadlines.empty() && deadlines.begin()->first <= now_ns) {
    Connection* c = deadlines.begin()->second;
    deadlines.erase(deadlines.begin());
    c->deadline = 0;
    c->on_deadline();  // may arm a new deadline (linger), or end it
  }
  rearm_clock();
}

void Server::Impl::count_response(StatusCode status) {
  const std::size_t cls = status / 100;
  ++counters.responses[cls < 6 ? cls : 0];
}

Server::Server(ServerTime time, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(time), std::move(options))) {}

Server::~Server() = default;

bool Server::route(Method method, std::string_view pattern, ExchangeHandler on_request) {
  return route(method, pattern, nullptr, std::move(on_request));
}

bool Server::route(Method method, std::string_view pattern, ExchangeHandler on_head,
                   ExchangeHandler on_request) {
  if (!on_request) return false;
  return impl_->router.add(method, pattern,
                           server_detail::Route{std::move(on_head), std::move(on_request)});
}

net::Status Server::listen(net::Stack& stack, uint16_t port) {
  return listen(stack, port, plain_transport);
}

net::Status Server::listen(net::Stack& stack, uint16_t port, TransportFactory transport) {
  Impl* impl = impl_.get();
  auto listening = stack.tcp().listen(
      port, [this, transport](net::TcpConnection c) { serve(c, transport); }, impl->options.tcp);
  if (!listening) return listening.status;
  impl->listeners.push_back(*listening);
  return net::Status::ok;
}

void Server::serve(net::TcpConnection connection) { serve(connection, plain_transport); }

void Server::serve(net::TcpConnection connection, const TransportFactory& transport) {
  Impl& s = *impl_;
  if (s.counters.open >= s.options.max_connections) {
    ++s.counters.refused;
    (void)connection.abort();
    return;
  }
  auto stream = net::TcpStream::open(connection, s.options.stream);
  if (!stream) {
    ++s.counters.refused;
    (void)connection.abort();
    return;
  }
  std::shared_ptr<Transport> t = transport(*stream);
  if (!t) {  // the transport refused (e.g. TLS over its connection limit) and closed it
    ++s.counters.refused;
    return;
  }
  ++s.counters.accepted;
  ++s.counters.open;
  std::make_shared<Connection>(s, std::move(t))->start();  // the stream's handlers own it
}

void Server::set_access_log(std::function<void(const AccessEntry&)> log) {
  impl_->access_log = std::move(log);
}

const ServerCounters& Server::counters() const { return impl_->counters; }
const ServerOptions& Server::options() const { return impl_->options; }

}  // namespace keel::http
