// libFuzzer target: the whole HTTP server, bytes in and bytes out. Two host
// stacks on an in-memory link; a client connection writes bytes from the
// input in pieces it chooses to an http::Server with a few routes (a page,
// an echo of the body, content streamed to a handler, a streamed 64 KiB
// response, an answer held until the input says, static files under /files
// with conditional, range and gzip requests and a 96 KiB file sent by
// reference), and the input moves time
// through every timeout. Build with -DKEEL_FUZZ=ON (clang); run
// test/fuzz/run_http.sh.
//
// Input: byte 0: bit 0 the client reads nothing, bit 1 a 2 KiB send buffer
// and a 512-byte OutputBuffer at the server. Then the client's script of client_script.hpp,
// with one record of its own:
//   0x03               the held request (/later) is answered
// Invariants (abort): no crash, leak or undefined behaviour (ASan, UBSan,
// LeakSanitizer: a connection's state must not outlive it); what the client
// receives starts with a status line; at most one connection open; no more
// responses than requests, parse errors and timeouts; at the end, after the
// client's abort and time, no connection left and no TCP memory on either
// side.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <keel/http/server.hpp>
#include <keel/http/static_files.hpp>
#include <net/stack.hpp>
#include <string>
#include <vector>

#include "client_script.hpp"
#include "server_options.hpp"
#include "stack_pair.hpp"

namespace {

using namespace std::chrono_literals;
namespace http = keel::http;

#define CHECK(ok) keel::fuzz::check_at("http_server_fuzz", ok, __LINE__)
using Side = keel::fuzz::StackSide;

using keel::test::FollowingClock;

http::ServerOptions options(uint8_t setup) {
  http::ServerOptions o = keel::fuzz::small_server_options();
  o.limits.max_body = 4096;
  o.limits.max_request_line = 256;
  o.limits.max_header_bytes = 512;
  o.limits.max_header_count = 8;
  if (setup & 2) {
    o.tcp.send_buffer = 2048;
    o.output_buffer = 512;
  }
  return o;
}

// Static files under /files: a small one with gzip and brotli variants
// (their bytes need not be compressed: the server never looks), one past
// every buffer, and a directory with an index.
constexpr std::string_view small_text = "0123456789abcdef\n";
constexpr std::string_view small_gzip = "\x1f\x8b fake variant";
constexpr std::string_view small_br = "fake brotli";
constexpr std::string_view index_text = "<h1>index</h1>\n";

std::span<const uint8_t> bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

const http::StaticTree& files() {
  static const std::vector<uint8_t> large(96 * 1024, 'L');
  static const http::StaticFile entries[] = {
      {"d/index.html", bytes(index_text), {}, 784111777, "\"i\"", "", {}, ""},
      {"large.bin", large, {}, 784111777, "\"l\"", "", {}, ""},
      {"small.txt", bytes(small_text), bytes(small_gzip), 784111777, "\"s\"", "\"sg\"",
       bytes(small_br), "\"sb\""},
  };
  static const http::StaticTree tree{entries};
  return tree;
}

class Run {
 public:
  Run(const uint8_t* data, std::size_t size)
      : script_{data, data + size}, setup_(size > 0 ? data[0] : 0) {}

  void go() {
    if (script_.done()) return;
    script_.next();  // the setup byte
    add_routes();
    CHECK(server_.listen(server_side_.stack, 80) == net::Status::ok);
    net::TcpOptions co;
    co.no_delay = true;
    co.auto_consume = !(setup_ & 1);
    client_ = *client_side_.stack.tcp().connect(
        {net::ip4::Addr{10, 0, 0, 2}, 80}, [](net::TcpConnection) {}, co);
    client_.on_read([this](std::span<const uint8_t> d) { received(d); });
    step(5);
    while (!script_.done()) record();
    step(50);
    client_.abort();
    held_ = {};
    step(3000);  // every timeout of the server's has passed
    const http::ServerCounters& c = server_.counters();
    CHECK(c.open == 0);
    CHECK(server_side_.stack.tcp().memory_used() == 0);
    CHECK(client_side_.stack.tcp().memory_used() == 0);
  }

 private:
  void add_routes() {
    server_.route(http::Method::get, "/",
                  [](http::Exchange ex) { ex.respond(http::Response{}, "home\n"); });
    server_.route(http::Method::post, "/echo",
                  [](http::Exchange ex) { ex.respond(http::Response{}, ex.body()); });
    server_.route(
        http::Method::put, "/stream",
        [this](http::Exchange ex) {
          ex.on_body([this](std::span<const uint8_t> p) { streamed_ += p.size(); });
        },
        [](http::Exchange ex) { ex.respond(http::status::no_content); });
    server_.route(http::Method::get, "/big", [](http::Exchange ex) {
      auto left = std::make_shared<std::size_t>(64 * 1024);
      ex.respond_stream(http::Response{}, [left](std::string& next) {
        if (*left == 0) return false;
        next.assign(std::min<std::size_t>(*left, 1000), 'b');
        *left -= next.size();
        return true;
      });
    });
    server_.route(http::Method::get, "/later", [this](http::Exchange ex) { held_ = ex; });
    CHECK(http::serve_static(server_, "/files", files()));
  }

  void received(std::span<const uint8_t> d) {
    constexpr std::string_view status_line = "HTTP/1.";  // 1.0 answers 1.0 (response_writer.cpp)
    const std::size_t more = std::min(d.size(), status_line.size() - got_.size());
    got_.append(reinterpret_cast<const char*>(d.data()), more);
    CHECK(got_ == status_line.substr(0, got_.size()));
    if (script_.reading) client_.consumed(client_.unconsumed());
  }

  void record() {
    switch (script_.play(client_, [this](int ms) { step(ms); })) {
      case -1:
        break;
      case 0x03:
        held_.respond(http::Response{}, "later\n");
        break;
      default:
        script_.in = script_.end;
        break;
    }
    const http::ServerCounters& c = server_.counters();
    CHECK(c.open <= 1);
    uint64_t responses = 0;
    for (int i = 2; i < 6; ++i) responses += c.responses[i];
    CHECK(responses <= c.requests + c.parse_errors + c.header_timeouts + c.body_timeouts);
  }

  // Frames sent during one millisecond arrive in the next.
  void step(int ms) {
    for (int i = 0; i < ms; ++i) {
      keel::fuzz::one_millisecond(server_side_, client_side_, [this] { server_clock_.run_due(); });
    }
  }

  keel::fuzz::ClientScript script_;
  uint8_t setup_;
  Side server_side_{net::ethernet::Addr{{2, 0, 0, 0, 0, 2}}, net::ip4::Addr{10, 0, 0, 2}};
  Side client_side_{net::ethernet::Addr{{2, 0, 0, 0, 0, 1}}, net::ip4::Addr{10, 0, 0, 1}};
  FollowingClock server_clock_{server_side_.clock};
  http::Server server_{http::ServerTime{&server_clock_, [] { return int64_t(0); }},
                       options(setup_)};
  net::TcpConnection client_;
  http::Exchange held_;
  std::string got_;  // the first bytes the client received (up to a status line's start)
  std::size_t streamed_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Run(data, size).go();
  return 0;
}
