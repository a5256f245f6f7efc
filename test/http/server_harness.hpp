// The server on the in-memory TCP pair (test/net/tcp_pair.hpp), for
// server_test.cpp and static_server_test.cpp: a Harness with a few routes and
// the test's clock, and a raw Client whose bytes go out as written.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <keel/http/server.hpp>
#include <memory>
#include <net/tcp_stream.hpp>
#include <optional>
#include <string>
#include <vector>

#include "manual_clock.hpp"
#include "tcp_pair.hpp"

using namespace std::chrono_literals;

namespace keel::http::test_harness {

using namespace std::chrono_literals;

using ::keel::test::TcpPair;
using ::net::TcpCloseReason;
using ::net::TcpConnection;

using keel::test::FollowingClock;

constexpr uint16_t port = 80;

inline ServerOptions test_options() {
  ServerOptions o;
  o.header_timeout = 2s;
  o.body_timeout = 3s;
  o.idle_timeout = 5s;
  o.send_timeout = 4s;
  o.linger_timeout = 1s;
  return o;
}

// Small buffers everywhere, for a client that stops reading: what the
// server holds for it must stay within them.
inline ServerOptions small_buffer_options() {
  ServerOptions o = test_options();
  o.send_timeout = 60s;
  o.output_buffer = 4096;
  o.tcp.send_buffer = 32 * 1024;
  o.tcp.receive_buffer = 16 * 1024;
  o.stream.write_limit = 16 * 1024;
  o.stream.drain_at = 4 * 1024;
  return o;
}

struct Harness {
  explicit Harness(ServerOptions o = test_options(), TransportFactory transport = {})
      : clock(pair.server.clock),
        owned(std::make_unique<Server>(ServerTime{&clock, [] { return int64_t(784111777); }}, o)),
        server(*owned) {
    server.route(Method::get, "/", [](Exchange ex) {
      Response r;
      r.set("Content-Type", "text/plain");
      ex.respond(r, "home\n");
    });
    server.route(Method::get, "/items/:id", [](Exchange ex) {
      ex.respond(Response{}, "item " + std::string(ex.param("id")) + "\n");
    });
    server.route(Method::post, "/echo", [](Exchange ex) { ex.respond(Response{}, ex.body()); });
    EXPECT_EQ(transport ? server.listen(pair.server.stack, port, std::move(transport))
                        : server.listen(pair.server.stack, port),
              ::net::Status::ok);
  }
  void step() {
    pair.step();
    clock.run_due();
  }
  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 60s) {
    for (int64_t ms = 0; ms < limit.count(); ++ms) {
      if (done()) return true;
      step();
    }
    return done();
  }
  void run_for(std::chrono::milliseconds t) {
    run_until([] { return false; }, t);
  }

  TcpPair pair;
  FollowingClock clock;
  std::unique_ptr<Server> owned;
  Server& server;  // until owned is reset
};

// A raw client: what it writes goes out as is; what comes back collects.
struct Client {
  explicit Client(Harness& h, bool reading = true) : harness(h) {
    ::net::TcpOptions o;
    o.auto_consume = reading;
    o.receive_buffer = 16 * 1024;
    c = *h.pair.client.stack.tcp().connect(
        h.pair.server_endpoint(port), [](TcpConnection) {}, o);
    c.on_read([this](std::span<const uint8_t> d) {
      if (d.empty()) {
        ended = true;
        (void)c.close();  // as curl does at the server's FIN
      }
      got.append(reinterpret_cast<const char*>(d.data()), d.size());
    });
    c.on_close([this](TcpCloseReason r) { closed = r; });
  }
  void send(std::string_view text) {
    auto r = c.write(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(*r, text.size());
  }
  // Status codes of the responses so far, in order.
  std::vector<int> statuses() const {
    std::vector<int> s;
    for (std::size_t at = got.find("HTTP/1.1 "); at != std::string::npos;
         at = got.find("HTTP/1.1 ", at + 1)) {
      s.push_back(std::stoi(got.substr(at + 9, 3)));  // no content here has "HTTP/1.1 "
    }
    return s;
  }
  bool has(std::size_t responses) {
    return harness.run_until([&] { return statuses().size() >= responses; });
  }
  bool ends() {
    return harness.run_until([&] { return ended || closed.has_value(); });
  }
  Harness& harness;
  TcpConnection c;
  std::string got;
  bool ended = false;
  std::optional<TcpCloseReason> closed;
};

inline const std::string get_home = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
inline const std::string post_echo =
    "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world";

}  // namespace keel::http::test_harness
