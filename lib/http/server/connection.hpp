// One HTTP connection on a TcpStream: the parser, the current exchange and
// its response, and the connection's one deadline (server.hpp has the
// behaviour; docs/http.md, "The server").
#pragma once
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>

#include "keel/http/output_buffer.hpp"
#include "keel/http/request_parser.hpp"
#include "keel/http/response_writer.hpp"
#include "keel/http/server.hpp"
#include "keel/http/transport.hpp"

namespace keel::http::server_detail {

struct Route {
  ExchangeHandler on_head;  // may be empty
  ExchangeHandler on_request;
};

// What the connection is doing, which decides what its deadline means.
enum class Phase : uint8_t {
  head,       // reading a request's header section (header_timeout)
  body,       // reading its content (body_timeout)
  handling,   // the request is complete; the handler has not answered yet
  writing,    // a response is going out (send_timeout while blocked)
  idle,       // keep-alive, before the next request's first byte (idle_timeout)
  lingering,  // our FIN is out; the client's input is dropped (linger_timeout)
  done,
};

struct Connection : std::enable_shared_from_this<Connection> {
  Connection(Server::Impl& server, std::shared_ptr<Transport> stream);

  void start();
  // The connection's deadline passed.
  void on_deadline();
  // The transport holds the client's input for the server's own work, or stopped holding it.
  void on_hold(bool held);

  // Exchange's calls.
  bool respond(Response head, std::string content, BodyProducer producer,
               std::span<const uint8_t> direct = {});
  // Resets the connection; no handler of it runs again.
  void abort();

  Server::Impl& server;
  std::shared_ptr<Transport> stream;  // plain TCP or TLS
  net::Endpoint remote;
  RequestParser parser;
  OutputBuffer out;
  Phase phase = Phase::head;
  uint64_t deadline = 0;  // 0: none; else in server's set
  uint64_t seq = 0;       // the current exchange
  bool in_on_data = false;
  bool peer_done = false;        // the client half-closed
  bool request_started = false;  // a byte of the current request arrived

  // The current exchange.
  const Route* route = nullptr;
  RouteParams params;
  StatusCode route_error = 0;  // answered at the request's end
  std::string body;
  BodyHandler body_handler;
  bool responded = false;

  // The current response.
  std::optional<ResponseWriter> writer;
  Response head;
  std::string content;
  std::size_t content_sent = 0;
  BodyProducer producer;
  bool producer_done = true;
  // Content sent by reference (respond_static), after the head.
  std::span<const uint8_t> direct;
  std::size_t direct_sent = 0;
  bool direct_started = false;
  bool blocked = false;  // the stream refused: waiting for on_drain

 private:
  std::size_t on_data(std::span<const uint8_t> data);
  void on_headers();
  void on_body(std::span<const uint8_t> piece);
  void on_message();
  void on_parse_error();
  void on_drain();
  void on_end();
  void pump();
  bool flush();
  bool send_direct();
  bool refused(net::Status s);
  void complete();
  void next_request();
  void answer_and_close(StatusCode status);
  void linger();
  void close();
  void finish();
  void set_deadline(std::chrono::milliseconds in);
  void clear_deadline();
};

}  // namespace keel::http::server_detail

namespace keel::http {

struct Server::Impl {
  Impl(ServerTime t, ServerOptions o);
  ~Impl();

  void arm(server_detail::Connection* c, uint64_t when);
  void disarm(server_detail::Connection* c);
  void on_wakeup();
  void rearm_clock();
  uint64_t now() const { return time.clock->now_ns(); }
  void count_response(StatusCode status);

  ServerTime time;
  ServerOptions options;
  ServerCounters counters;
  Router<server_detail::Route> router;
  std::vector<net::TcpListener> listeners;
  std::function<void(const AccessEntry&)> access_log;
  std::set<std::pair<uint64_t, server_detail::Connection*>> deadlines;
  uint64_t armed_for = net::Clock::never;  // what the clock was last asked for
  // Open connections: reset when the server goes, so none calls back into it.
  std::unordered_set<server_detail::Connection*> connections;
};

}  // namespace keel::http
