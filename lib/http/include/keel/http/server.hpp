// An HTTP/1.1 server on net::TcpStream: the request parser, the router and
// the response writer joined per connection (docs/http.md, "The server").
//
//   static http::Server server(http::os_server_time());
//   server.route(http::Method::get, "/hello", [](http::Exchange ex) {
//     http::Response r;
//     r.set("Content-Type", "text/plain");
//     ex.respond(r, "hello\n");
//   });
//   server.listen(net::stack(), 80);
//
// Per connection, requests are parsed as bytes arrive and answered one at a
// time in the order they came (pipelining, RFC 9112 §9.3.2): while a
// response is pending or being written, reading pauses, so pipelined
// requests wait in the TCP receive buffer and close the window. Responses go
// through a bounded OutputBuffer into the stream; when the stream refuses
// (its queue is at write_limit: the client does not read) the response
// waits for on_drain. A parse error is answered with its status and the
// connection closed. Timeouts (ServerOptions) answer 408 to a client slow to
// send its header or body, close idle keep-alive connections and reset a
// client that stops reading.
//
// Lifetime: a Server that is destroyed resets its open connections first
// (a service usually keeps it for good). Handlers run from the connection's
// events; an Exchange is a handle that may be kept and answered later
// (respond() on a stale one does nothing).
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <net/clock.hpp>
#include <net/stack.hpp>
#include <net/tcp_stream.hpp>
#include <string>
#include <string_view>

#include "keel/http/json.hpp"
#include "keel/http/limits.hpp"
#include "keel/http/request.hpp"
#include "keel/http/response.hpp"
#include "keel/http/response_writer.hpp"
#include "keel/http/router.hpp"
#include "keel/http/transport.hpp"

namespace keel::http {

struct ServerOptions {
  Limits limits;  // the parser's: request line, header, body (413 past max_body)
  // Content kept whole in memory for body() (a route without on_body):
  // past it, 413 and close, before the content when Content-Length says so.
  // A route that streams its content (on_body) is bounded by limits.max_body
  // only, so a service can take large uploads without buffering them.
  uint64_t max_buffered_body = 1024 * 1024;
  WriterOptions writer;
  // Per connection: what a response is framed into before the stream takes it.
  std::size_t output_buffer = 16 * 1024;
  // From a request's first byte (or the connection's start) to the end of
  // its header section; past it, 408 and close (slowloris).
  std::chrono::milliseconds header_timeout{10'000};
  // Between two pieces of a request's content; past it, 408 and close.
  std::chrono::milliseconds body_timeout{30'000};
  // A keep-alive connection waiting for its next request; past it, closed
  // without a response (RFC 9112 §9.5).
  std::chrono::milliseconds idle_timeout{60'000};
  // A response the client takes nothing of for this long: reset.
  std::chrono::milliseconds send_timeout{60'000};
  // After our FIN (a close after a response), how long the client's
  // remaining input is read and dropped before a reset (RFC 9112 §9.6).
  std::chrono::milliseconds linger_timeout{5'000};
  // Connections at once; one more is reset as soon as it is accepted.
  std::size_t max_connections = 1024;
  net::TcpStreamOptions stream;
  net::TcpOptions tcp;  // auto_consume is always off (the stream's)
};

struct ServerCounters {
  uint64_t accepted = 0;
  uint64_t refused = 0;  // over max_connections
  uint64_t open = 0;
  uint64_t requests = 0;                       // header sections received
  uint64_t responses[6] = {0, 0, 0, 0, 0, 0};  // by class: [2] is 2xx
  uint64_t parse_errors = 0;
  uint64_t header_timeouts = 0;
  uint64_t body_timeouts = 0;
  uint64_t idle_timeouts = 0;
  uint64_t send_timeouts = 0;
};

// One line of an access log: what was asked and what was answered.
struct AccessEntry {
  net::Endpoint remote;
  std::string_view method;
  std::string_view target;
  StatusCode status = 0;
  uint64_t content_bytes = 0;  // content given to the response (not framing)
};

// Time for a server: monotonic now and one wake-up (its timeouts), and the
// wall clock in seconds since 1970 (the Date field).
struct ServerTime {
  net::Clock* clock = nullptr;
  std::function<int64_t()> unix_seconds;
};
// The kernel's (os::Timers, os::wall_clock): in images and the Linux-process
// build, not in the host library. Each call makes a new timer.
ServerTime os_server_time();

namespace server_detail {
struct Connection;
}

// Pieces of a request's content as they arrive (spans valid during the call).
using BodyHandler = std::function<void(std::span<const uint8_t> piece)>;
// The next piece of a streamed response's content into `next`; false when
// there is no more (and `next` is ignored).
using BodyProducer = std::function<bool(std::string& next)>;

class Exchange {
 public:
  Exchange() = default;

  // Whether this is still the connection's current, unanswered request.
  bool pending() const;
  const Request& request() const;
  std::string_view param(std::string_view name) const;
  // The content so far (all of it in on_request), unless on_body took it.
  const std::string& body() const;
  net::Endpoint remote() const;

  // From an on_head handler: content goes to `handler` instead of body().
  void on_body(BodyHandler handler);

  // Answers with `content` (Content-Length is its size unless `head` has
  // one). Before the request's end (from on_head or on_body) the connection
  // closes after the response. False if already answered or stale.
  bool respond(Response head, std::string content = {});
  bool respond(JsonReply reply) { return respond(std::move(reply.head), std::move(reply.body)); }
  bool respond(StatusCode status);  // an empty response with that status
  // Content pulled from `producer` as the client takes it (chunked unless
  // `head` has a Content-Length).
  bool respond_stream(Response head, BodyProducer producer);
  // Content that outlives the response (embedded static files): sent by
  // reference into the stream, never copied into a buffer of ours, as the
  // client takes it. Content-Length is its size.
  bool respond_static(Response head, std::span<const uint8_t> content);

 private:
  friend struct server_detail::Connection;
  Exchange(std::weak_ptr<server_detail::Connection> c, uint64_t seq)
      : connection_(std::move(c)), seq_(seq) {}
  server_detail::Connection* current() const;
  std::weak_ptr<server_detail::Connection> connection_;
  uint64_t seq_ = 0;
};

using ExchangeHandler = std::function<void(Exchange)>;

class Server;
struct StaticTree;
// Serves `tree` under `prefix` ("/" or "/static"): GET and HEAD of
// prefix/PATH answer the file PATH (static_files.hpp: conditional and
// range requests, the gzip variant), a directory by its index.html (301 to
// add the final '/' when it lacks one), 404 for a name the tree does not
// have; the router answers 405 with Allow for other methods. The tree must
// outlive the server. False if the routes cannot be added.
bool serve_static(Server& server, std::string_view prefix, const StaticTree& tree);

class Server {
 public:
  Server(ServerTime time, ServerOptions options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // on_request runs when the request is complete, its content in body()
  // (at most limits.max_body). False if the pattern is malformed or taken.
  bool route(Method method, std::string_view pattern, ExchangeHandler on_request);
  // on_head runs at the end of the header section (it may take the
  // content with on_body, or answer at once); on_request at the end.
  bool route(Method method, std::string_view pattern, ExchangeHandler on_head,
             ExchangeHandler on_request);

  // Listens on `port` of every address of `stack`.
  net::Status listen(net::Stack& stack, uint16_t port);
  // The same through a transport made per connection: HTTPS with lib/tls
  // (keel/tls/https.hpp), the same routes and request path as plain HTTP.
  net::Status listen(net::Stack& stack, uint16_t port, TransportFactory transport);
  // Serves a connection accepted elsewhere (its options must have
  // auto_consume off).
  void serve(net::TcpConnection connection);
  void serve(net::TcpConnection connection, const TransportFactory& transport);

  // Called once per response, after it went into the stream. Off when unset.
  void set_access_log(std::function<void(const AccessEntry&)> log);

  const ServerCounters& counters() const;
  const ServerOptions& options() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel::http
