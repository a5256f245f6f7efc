// http::Server on the in-memory TCP pair (test/net/tcp_pair.hpp): a client
// stack sends raw requests to the server's stack; time is the test's, so
// timeouts are exact. Pipelining, keep-alive, every split of a request,
// 100-continue, parse errors, body limits, a slow reader's bounded memory,
// and the header, body, idle and send timeouts.
#include <gtest/gtest.h>

#include <cstdio>
#include <keel/http/server.hpp>
#include <memory>
#include <net/tcp_stream.hpp>
#include <optional>
#include <string>
#include <vector>

#include "heap_in_use.hpp"
#include "server_harness.hpp"

using namespace std::chrono_literals;

namespace keel::http {
namespace {

using namespace test_harness;
using ::net::TcpCloseReason;
using ::net::TcpConnection;

TEST(HttpServer, AnswersSeveralRequestsOnOneKeepAliveConnection) {
  Harness h;
  Client c(h);
  c.send(get_home);
  ASSERT_TRUE(c.has(1));
  c.send("GET /items/7 HTTP/1.1\r\nHost: a\r\n\r\n");
  ASSERT_TRUE(c.has(2));
  c.send(post_echo);
  ASSERT_TRUE(c.has(3));
  EXPECT_EQ(c.statuses(), (std::vector<int>{200, 200, 200}));
  EXPECT_NE(c.got.find("home\n"), std::string::npos);
  EXPECT_NE(c.got.find("item 7\n"), std::string::npos);
  EXPECT_NE(c.got.find("Content-Length: 11\r\n\r\nhello world"), std::string::npos);
  EXPECT_NE(c.got.find("Date: Sun, 06 Nov 1994 08:49:37 GMT"), std::string::npos);
  EXPECT_FALSE(c.closed.has_value());
  EXPECT_EQ(h.server.counters().requests, 3u);
  EXPECT_EQ(h.server.counters().responses[2], 3u);
  EXPECT_EQ(h.server.counters().open, 1u);
}

TEST(HttpServer, AnswersPipelinedRequestsInOrder) {
  Harness h;
  Client c(h);
  c.send(get_home + post_echo + "GET /items/x%20y HTTP/1.1\r\nHost: a\r\n\r\n" +
         "GET /nowhere HTTP/1.1\r\nHost: a\r\n\r\n" + "GET /items/9 HTTP/1.1\r\nHost: a\r\n\r\n");
  ASSERT_TRUE(c.has(5)) << c.got;
  EXPECT_EQ(c.statuses(), (std::vector<int>{200, 200, 200, 404, 200}));
  const auto home = c.got.find("home\n"), echo = c.got.find("hello world"),
             xy = c.got.find("item x y\n"), nine = c.got.find("item 9\n");
  EXPECT_LT(home, echo);
  EXPECT_LT(echo, xy);
  EXPECT_LT(xy, nine);
  EXPECT_NE(nine, std::string::npos);
}

TEST(HttpServer, EverySplitOfARequestGetsTheSameAnswer) {
  Harness h;
  Client c(h);
  const std::string request = post_echo;
  for (std::size_t cut = 1; cut < request.size(); ++cut) {
    c.send(request.substr(0, cut));
    h.run_for(3ms);  // the first part arrives alone
    c.send(request.substr(cut));
    ASSERT_TRUE(c.has(cut)) << "cut at " << cut << "\n" << c.got;
  }
  EXPECT_EQ(c.statuses(), std::vector<int>(request.size() - 1, 200));
  EXPECT_EQ(h.server.counters().responses[2], request.size() - 1);
}

TEST(HttpServer, AnswersExpectContinueBeforeTheBody) {
  Harness h;
  Client c(h);
  c.send("POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
  ASSERT_TRUE(c.has(1));
  EXPECT_EQ(c.statuses(), std::vector<int>{100});
  c.send("abc");
  ASSERT_TRUE(c.has(2));
  EXPECT_EQ(c.statuses(), (std::vector<int>{100, 200}));
  // A route error is answered at once instead of 100, and the connection closes.
  Client d(h);
  d.send("POST /nowhere HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
  ASSERT_TRUE(d.ends());
  EXPECT_EQ(d.statuses(), std::vector<int>{404});
  EXPECT_NE(d.got.find("Connection: close"), std::string::npos);
}

TEST(HttpServer, AParseErrorIsAnsweredWithItsStatusAndTheConnectionCloses) {
  Harness h;
  Client c(h);
  c.send(get_home +
         "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
         "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
         get_home);
  ASSERT_TRUE(c.ends());
  EXPECT_EQ(c.statuses(), (std::vector<int>{200, 400}));  // nothing after the bad one
  EXPECT_EQ(h.server.counters().parse_errors, 1u);
  EXPECT_EQ(h.server.counters().responses[4], 1u);
  h.run_for(100ms);
  EXPECT_EQ(h.server.counters().open, 0u);
}

TEST(HttpServer, ABodyOverTheLimitGets413) {
  ServerOptions o = test_options();
  o.limits.max_body = 10;
  Harness h(o);
  Client c(h);
  c.send(post_echo);  // 11 bytes
  ASSERT_TRUE(c.ends());
  EXPECT_EQ(c.statuses(), std::vector<int>{413});
}

// HEAD of a streamed response: the head only, and the producer is never
// asked for the content it would drop (it may be 1 TiB, as examples/web's
// /api/bytes/:n can be).
TEST(HttpServer, AHeadRequestDoesNotRunTheStreamsProducer) {
  Harness h;
  std::size_t calls = 0;
  h.server.route(Method::get, "/stream", [&](Exchange ex) {
    Response r;
    r.content_length = uint64_t(1) << 40;
    ex.respond_stream(r, [&](std::string& next) {
      ++calls;
      next.assign(16 * 1024, 'x');
      return calls < 100;  // ends, so that a server that asks fails rather than hangs
    });
  });
  Client c(h);
  c.send("HEAD /stream HTTP/1.1\r\nHost: a\r\n\r\n" + get_home);
  ASSERT_TRUE(c.has(2));
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(c.statuses(), (std::vector<int>{200, 200}));
  EXPECT_NE(c.got.find("Content-Length: 1099511627776\r\n"), std::string::npos);
}

// Content kept whole for body() is bounded by max_buffered_body; a route
// that streams its content (on_body) only by limits.max_body.
TEST(HttpServer, ABufferedBodyOverItsLimitGets413AndAStreamedOneGoesThrough) {
  ServerOptions o = test_options();
  o.max_buffered_body = 10;
  Harness h(o);
  std::size_t bytes = 0;
  h.server.route(
      Method::put, "/upload", [&](Exchange ex) { ex.on_body([&](auto p) { bytes += p.size(); }); },
      [&](Exchange ex) { ex.respond(Response{}, std::to_string(bytes)); });

  Client sized(h);  // refused at its header: the 11 bytes need not come
  sized.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n");
  ASSERT_TRUE(sized.ends());
  EXPECT_EQ(sized.statuses(), std::vector<int>{413});
  EXPECT_NE(sized.got.find("Connection: close"), std::string::npos);

  Client chunked(h);  // refused when its chunks pass the limit
  chunked.send(
      "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
      "6\r\nhello \r\n6\r\nworld!\r\n0\r\n\r\n");
  ASSERT_TRUE(chunked.ends());
  EXPECT_EQ(chunked.statuses(), std::vector<int>{413});

  Client small(h);
  small.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhelloworld");
  ASSERT_TRUE(small.has(1));
  EXPECT_EQ(small.statuses(), std::vector<int>{200});

  Client streamed(h);
  streamed.send("PUT /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n" +
                std::string(1000, 'x'));
  ASSERT_TRUE(streamed.has(1));
  EXPECT_NE(streamed.got.find("\r\n\r\n1000"), std::string::npos);
}

TEST(HttpServer, ABodyIsStreamedToItsHandlerInPieces) {
  Harness h;
  std::size_t pieces = 0, bytes = 0;
  h.server.route(
      Method::put, "/upload",
      [&](Exchange ex) {
        ex.on_body([&](std::span<const uint8_t> p) {
          ++pieces;
          bytes += p.size();
        });
      },
      [&](Exchange ex) { ex.respond(Response{}, std::to_string(bytes)); });
  Client c(h);
  const std::string content(200'000, 'x');
  c.send("PUT /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 200000\r\n\r\n");
  h.run_for(5ms);
  c.send(content);
  ASSERT_TRUE(c.has(1));
  EXPECT_EQ(bytes, content.size());
  EXPECT_GT(pieces, 1u);
  EXPECT_NE(c.got.find("\r\n\r\n200000"), std::string::npos);
}

TEST(HttpServer, ASlowlorisClientGets408AtTheHeaderTimeoutWhileOthersAreServed) {
  Harness h;
  Client slow(h);
  slow.send("GET / HTTP/1.1\r\nHost: a\r\nX-A: ");
  h.run_for(1000ms);
  slow.send("b\r\nX-C: ");  // trickling does not move the deadline
  Client other(h);
  other.send(get_home);
  ASSERT_TRUE(other.has(1));
  h.run_for(900ms);
  EXPECT_TRUE(slow.got.empty());
  ASSERT_TRUE(h.run_until([&] { return slow.ended; }, 200ms));
  EXPECT_EQ(slow.statuses(), std::vector<int>{408});
  EXPECT_EQ(h.server.counters().header_timeouts, 1u);
  other.send(get_home);  // the other one still is served
  ASSERT_TRUE(other.has(2));
}

TEST(HttpServer, ASlowBodyGets408AtTheBodyTimeout) {
  Harness h;
  Client c(h);
  c.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhel");
  h.run_for(2500ms);
  c.send("lo");  // progress moves the body deadline
  h.run_for(2500ms);
  EXPECT_TRUE(c.got.empty());
  ASSERT_TRUE(c.ends());
  EXPECT_EQ(c.statuses(), std::vector<int>{408});
  EXPECT_EQ(h.server.counters().body_timeouts, 1u);
}

TEST(HttpServer, AnIdleKeepAliveConnectionIsClosedWithoutAResponse) {
  Harness h;
  Client c(h);
  c.send(get_home);
  ASSERT_TRUE(c.has(1));
  h.run_for(4900ms);
  EXPECT_FALSE(c.ended);
  ASSERT_TRUE(h.run_until([&] { return c.ended; }, 200ms));
  EXPECT_EQ(c.statuses(), std::vector<int>{200});
  EXPECT_EQ(h.server.counters().idle_timeouts, 1u);
  // And a connection that never sends a byte, at the header timeout.
  Client silent(h);
  ASSERT_TRUE(silent.ends());
  EXPECT_TRUE(silent.got.empty());
}

TEST(HttpServer, AClientThatDoesNotReadHoldsBoundedMemoryThenGetsEverything) {
  ServerOptions o = small_buffer_options();
  Harness h(o);
  const std::size_t total = 4 << 20, piece = 8192;
  std::size_t produced = 0;
  h.server.route(Method::get, "/big", [&](Exchange ex) {
    ex.respond_stream(Response{}, [&](std::string& next) {
      if (produced == total) return false;
      next.assign(piece, char('a' + produced / piece % 26));
      produced += piece;
      return true;
    });
  });
  Client c(h, false);  // reads nothing: its 16 KiB window closes
  c.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n" + get_home);
  h.run_for(3s);
  const std::size_t stuck = produced;
  h.run_for(3s);
  EXPECT_EQ(produced, stuck);
  std::printf("produced %zu bytes for a client that reads nothing\n", produced);
  // The client's window, the send buffer, the stream's queue (its limit and
  // the write that crossed it), the OutputBuffer and one piece.
  EXPECT_LE(produced, 16 * 1024 + 32 * 1024 + 16 * 1024 + 4096 + 4096 + piece + piece);
  // The stack's buffers: the send buffer and the receive buffer.
  EXPECT_LE(h.pair.server.stack.tcp().memory_used(), 32 * 1024 + 16 * 1024 + 4096);
  // It reads: all of it comes, chunked, then the pipelined request's answer.
  std::size_t read = 0;
  c.c.on_read([&](std::span<const uint8_t> d) {
    if (d.empty()) c.ended = true;
    c.got.append(reinterpret_cast<const char*>(d.data()), d.size());
    read += d.size();
    c.c.consumed(c.c.unconsumed());
  });
  c.c.consumed(c.c.unconsumed());
  ASSERT_TRUE(c.has(2));
  EXPECT_EQ(produced, total);
  EXPECT_EQ(c.statuses(), (std::vector<int>{200, 200}));
  EXPECT_NE(c.got.find("Transfer-Encoding: chunked"), std::string::npos);
  EXPECT_GT(c.got.size(), total);
  EXPECT_NE(c.got.find("home\n"), std::string::npos);
}

TEST(HttpServer, AClientThatStopsReadingIsResetAtTheSendTimeout) {
  Harness h;
  h.server.route(Method::get, "/big",
                 [](Exchange ex) { ex.respond(Response{}, std::string(1 << 20, 'z')); });
  Client c(h, false);
  c.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n");
  h.run_for(3s);
  EXPECT_FALSE(c.closed.has_value());
  ASSERT_TRUE(h.run_until([&] { return c.closed.has_value(); }, 3s));
  EXPECT_EQ(c.closed, TcpCloseReason::reset);
  EXPECT_EQ(h.server.counters().send_timeouts, 1u);
  EXPECT_EQ(h.server.counters().open, 0u);
}

TEST(HttpServer, ConnectionsOverTheLimitAreRefused) {
  ServerOptions o = test_options();
  o.max_connections = 1;
  Harness h(o);
  Client a(h);
  a.send(get_home);
  ASSERT_TRUE(a.has(1));
  Client b(h);
  ASSERT_TRUE(b.ends());
  EXPECT_EQ(b.closed, TcpCloseReason::reset);
  EXPECT_EQ(h.server.counters().refused, 1u);
}

TEST(HttpServer, AnswersRouteErrorsAndConnectionClose) {
  Harness h;
  Client c(h);
  c.send(
      "DELETE / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(c.ends());
  EXPECT_EQ(c.statuses(), (std::vector<int>{405, 200}));
  EXPECT_NE(c.got.find("Allow: GET, HEAD"), std::string::npos);
  EXPECT_NE(c.got.find("Connection: close"), std::string::npos);
}

TEST(HttpServer, AnAnswerGivenLaterStillGoesOutInOrder) {
  Harness h;
  Exchange held;
  h.server.route(Method::get, "/later", [&](Exchange ex) { held = ex; });
  Client c(h);
  c.send("GET /later HTTP/1.1\r\nHost: a\r\n\r\n" + get_home);
  h.run_for(50ms);
  EXPECT_TRUE(c.got.empty());  // the second waits behind the first
  ASSERT_TRUE(held.pending());
  EXPECT_TRUE(held.respond(Response{}, "late\n"));
  EXPECT_FALSE(held.respond(Response{}, "twice\n"));
  ASSERT_TRUE(c.has(2));
  EXPECT_LT(c.got.find("late\n"), c.got.find("home\n"));
}

// Each connection's state (parser, 16 KiB OutputBuffer) goes with it: many
// connections one after another leave the heap where it was.
TEST(HttpServer, AClosedConnectionLeavesNothingBehind) {
  Harness h;
  auto one = [&](int i) {
    Client c(h);
    c.send(i % 2 ? "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                 : "GET / HTTP/1.0\r\n\r\n");
    ASSERT_TRUE(c.ends());
    ASSERT_TRUE(h.run_until([&] { return h.server.counters().open == 0; }));
  };
  for (int i = 0; i < 20; ++i) one(i);
  h.run_for(200ms);
  const std::size_t before = ::keel::test::heap_in_use();
  for (int i = 0; i < 200; ++i) one(i);
  h.run_for(200ms);
  EXPECT_EQ(h.server.counters().open, 0u);
  EXPECT_EQ(h.server.counters().responses[2], 220u);
  // 200 connections kept would be over 3 MiB of OutputBuffers alone.
  EXPECT_LT(::keel::test::heap_in_use(), before + 256 * 1024);
}

// An idle keep-alive connection holds no OutputBuffer (allocated for a
// response, freed when it all went into the stream) and no body or content
// storage: 10,000 of them must fit in a 64 MiB image (test_web_scale.py).
// Measured: the heap per connection of both ends of the in-memory pair
// (two TCP connections and streams, the server's state, the client's
// bookkeeping) without the TCP buffers, which the stack's budget bounds
// apart (receive rings are freed when emptied once the budget is half
// used). With a 16 KiB OutputBuffer kept, the figure is over 16 KiB.
TEST(HttpServer, AnIdleKeepAliveConnectionHoldsNoResponseBuffer) {
  Harness h;
  constexpr std::size_t count = 200;
  std::vector<std::unique_ptr<Client>> clients;
  auto open_one = [&] {
    clients.push_back(std::make_unique<Client>(h));
    clients.back()->send(post_echo);  // a body and a response: every buffer used once
    ASSERT_TRUE(clients.back()->has(1));
  };
  auto tcp_buffers = [&] {
    return h.pair.server.stack.tcp().memory_used() + h.pair.client.stack.tcp().memory_used();
  };
  open_one();  // the first's one-time allocations (the stacks' tables grow)
  h.run_for(100ms);
  const std::size_t heap_before = ::keel::test::heap_in_use();
  const std::size_t tcp_before = tcp_buffers();
  for (std::size_t i = 0; i < count; ++i) open_one();
  h.run_for(100ms);
  const std::size_t tcp = (tcp_buffers() - tcp_before) / count;
  const std::size_t state = (::keel::test::heap_in_use() - heap_before) / count - tcp;
  std::printf("per idle keep-alive connection, both ends: %zu bytes of state, %zu of TCP buffers\n",
              state, tcp);
  EXPECT_EQ(h.server.counters().open, count + 1);
  EXPECT_LT(state, h.server.options().output_buffer);
  // Every one still works.
  for (auto& c : clients) c->send(get_home);
  for (auto& c : clients) ASSERT_TRUE(c->has(2));
}

// A server that goes first resets its connections: none calls back into it.
TEST(HttpServer, AServerThatGoesResetsItsConnections) {
  Harness h;
  Client c(h);
  c.send(get_home);
  ASSERT_TRUE(c.has(1));
  Client slow(h);
  slow.send("GET / HTTP/1.1\r\n");
  h.run_for(10ms);
  h.owned.reset();
  ASSERT_TRUE(h.run_until([&] { return c.closed.has_value() && slow.closed.has_value(); }));
  EXPECT_EQ(c.closed, TcpCloseReason::reset);
  EXPECT_EQ(slow.closed, TcpCloseReason::reset);
  h.run_for(5s);  // no timeout of the server's runs
}

}  // namespace
}  // namespace keel::http
