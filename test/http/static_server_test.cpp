// serve_static on the server (the in-memory TCP pair): routing of a mounted
// tree beside other routes, redirects, 404/405/400, conditional and range
// requests on the wire, HEAD, and a large file sent by reference to a
// client that does not read (bounded memory, then every byte).
#include <gtest/gtest.h>

#include <cstring>
#include <keel/http/static_files.hpp>
#include <string>
#include <vector>

#include "heap_in_use.hpp"
#include "server_harness.hpp"

using namespace std::chrono_literals;

namespace keel::http {
namespace {

using namespace test_harness;

std::span<const uint8_t> bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

constexpr std::string_view index_page = "<h1>index</h1>\n";
constexpr std::string_view docs_page = "<h1>docs</h1>\n";
constexpr std::string_view digits = "0123456789";
constexpr int64_t modified = 784111777;

// 4 MiB that live as long as the program, as embedded files do.
const std::vector<uint8_t>& big_content() {
  static const std::vector<uint8_t> big = [] {
    std::vector<uint8_t> v(4 << 20);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(i * 7 + i / 4096);
    return v;
  }();
  return big;
}

const StaticTree& tree() {
  static const StaticFile files[] = {
      {"big.bin", big_content(), {}, modified, "\"big\"", "", {}, ""},
      {"digits.txt", bytes(digits), {}, modified, "\"digits\"", "", {}, ""},
      {"docs/index.html", bytes(docs_page), {}, modified, "\"docs\"", "", {}, ""},
      {"index.html", bytes(index_page), {}, modified, "\"index\"", "", {}, ""},
  };
  static const StaticTree t{files};
  return t;
}

struct StaticHarness : Harness {
  explicit StaticHarness(ServerOptions o = test_options(), std::string_view mount = "/")
      : Harness(o) {
    EXPECT_TRUE(serve_static(server, mount, tree()));
    server.route(Method::get, "/api/status", [](Exchange ex) { ex.respond(Response{}, "up\n"); });
  }
};

std::string round_trip(Harness& h, const std::string& request, std::size_t responses = 1) {
  Client c(h);
  c.send(request);
  EXPECT_TRUE(c.has(responses));
  h.run_for(10ms);
  return c.got;
}

std::string get(Harness& h, std::string_view target, std::string_view fields = "",
                std::string_view method = "GET") {
  return round_trip(h, std::string(method) + " " + std::string(target) +
                           " HTTP/1.1\r\nHost: a\r\n" + std::string(fields) + "\r\n");
}

bool has(const std::string& got, std::string_view text) {
  return got.find(text) != std::string::npos;
}

TEST(HttpStatic, ServesFilesBesideOtherRoutes) {
  StaticHarness h;
  std::string got = get(h, "/index.html");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 200 OK\r\n")) << got;
  EXPECT_TRUE(has(got, "Content-Type: text/html; charset=utf-8\r\n"));
  EXPECT_TRUE(has(got, "ETag: \"index\"\r\n"));
  EXPECT_TRUE(has(got, "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n"));
  EXPECT_TRUE(has(got, "Content-Length: 15\r\n"));
  EXPECT_TRUE(got.ends_with("\r\n\r\n" + std::string(index_page)));
  EXPECT_TRUE(get(h, "/").ends_with("home\n"));  // the harness's own "/" wins
  EXPECT_TRUE(get(h, "/docs/").ends_with(std::string(docs_page)));
  EXPECT_TRUE(get(h, "/api/status").ends_with("up\n"));  // the literal route wins
  EXPECT_TRUE(get(h, "/index.html?v=2").ends_with(std::string(index_page)));
}

TEST(HttpStatic, DirectoryWithoutSlashIsRedirected) {
  StaticHarness h;
  std::string got = get(h, "/docs?x=1");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 301 ")) << got;
  EXPECT_TRUE(has(got, "Location: /docs/?x=1\r\n")) << got;
  StaticHarness mounted(test_options(), "/static");
  got = get(mounted, "/static");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 301 ")) << got;
  EXPECT_TRUE(has(got, "Location: /static/\r\n")) << got;
  EXPECT_TRUE(get(mounted, "/static/").ends_with(std::string(index_page)));
  EXPECT_TRUE(get(mounted, "/static/digits.txt").ends_with(std::string(digits)));
  EXPECT_TRUE(get(mounted, "/digits.txt").starts_with("HTTP/1.1 404 "));
}

TEST(HttpStatic, MissingOtherMethodsAndTraversal) {
  StaticHarness h;
  EXPECT_TRUE(get(h, "/missing.html").starts_with("HTTP/1.1 404 "));
  EXPECT_TRUE(get(h, "/index.html/").starts_with("HTTP/1.1 404 "));
  std::string got = get(h, "/index.html", "Content-Length: 0\r\n", "POST");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 405 ")) << got;
  EXPECT_TRUE(has(got, "Allow: GET, HEAD\r\n")) << got;
  EXPECT_TRUE(get(h, "/index.html", "", "DELETE").starts_with("HTTP/1.1 405 "));
  // Dot segments, plain or percent-encoded, an encoded '/' and NUL: 400,
  // never a lookup (and the tree has only exact names anyway).
  for (std::string_view bad :
       {"/../index.html", "/docs/../index.html", "/%2e%2e/index.html", "/docs/%2E%2e/index.html",
        "/.%2e/x", "/docs%2Findex.html", "/index.html%00", "/./index.html"})
    EXPECT_TRUE(get(h, bad).starts_with("HTTP/1.1 400 ")) << bad;
}

TEST(HttpStatic, HeadHasTheLengthAndNoContent) {
  StaticHarness h;
  std::string got = get(h, "/digits.txt", "", "HEAD");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 200 ")) << got;
  EXPECT_TRUE(has(got, "Content-Length: 10\r\n"));
  EXPECT_TRUE(got.ends_with("\r\n\r\n")) << got;
  // The connection goes on after it: the next answer is whole.
  got = round_trip(h,
                   "HEAD /big.bin HTTP/1.1\r\nHost: a\r\n\r\nGET /digits.txt HTTP/1.1\r\nHost: "
                   "a\r\n\r\n",
                   2);
  EXPECT_TRUE(has(got, "Content-Length: 4194304\r\n"));
  EXPECT_TRUE(got.ends_with(std::string(digits))) << got.size();
}

TEST(HttpStatic, ConditionalAndRangeRequests) {
  StaticHarness h;
  std::string got = get(h, "/digits.txt", "If-None-Match: \"digits\"\r\n");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 304 ")) << got;
  EXPECT_FALSE(has(got, "Content-Length"));
  EXPECT_TRUE(got.ends_with("\r\n\r\n"));
  EXPECT_TRUE(get(h, "/digits.txt", "If-Match: \"old\"\r\n").starts_with("HTTP/1.1 412 "));
  got = get(h, "/digits.txt", "Range: bytes=2-4\r\n");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 206 ")) << got;
  EXPECT_TRUE(has(got, "Content-Range: bytes 2-4/10\r\n"));
  EXPECT_TRUE(got.ends_with("\r\n\r\n234")) << got;
  got = get(h, "/digits.txt", "Range: bytes=-3\r\n");
  EXPECT_TRUE(got.ends_with("\r\n\r\n789")) << got;
  got = get(h, "/digits.txt", "Range: bytes=10-\r\n");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 416 ")) << got;
  EXPECT_TRUE(has(got, "Content-Range: bytes */10\r\n"));
  EXPECT_TRUE(has(got, "Content-Length: 0\r\n"));
  got = get(h, "/digits.txt", "Range: bytes=2-4\r\nIf-Range: \"old\"\r\n");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 200 ")) << got;
  EXPECT_TRUE(got.ends_with(std::string(digits)));
}

TEST(HttpStatic, ALargeFileGoesByReferenceWithBoundedMemory) {
  ServerOptions o = small_buffer_options();
  StaticHarness h(o);
  const std::size_t heap_before = ::keel::test::heap_in_use();
  Client c(h, false);  // reads nothing: its 16 KiB window closes
  c.send("GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\nGET /digits.txt HTTP/1.1\r\nHost: a\r\n\r\n");
  h.run_for(3s);
  // Nothing of the 4 MiB was copied: the heap grew by the connection's own
  // buffers only. The stack's budget counts the referenced pieces as bytes:
  // a full send buffer plus the piece that crossed it (at most the send
  // buffer's size), and the receive buffer.
  EXPECT_LT(::keel::test::heap_in_use(), heap_before + 256 * 1024);
  EXPECT_LE(h.pair.server.stack.tcp().memory_used(), 2 * 32 * 1024 + 16 * 1024 + 4096);
  c.c.on_read([&](std::span<const uint8_t> d) {
    if (d.empty()) c.ended = true;
    c.got.append(reinterpret_cast<const char*>(d.data()), d.size());
    c.c.consumed(c.c.unconsumed());
  });
  c.c.consumed(c.c.unconsumed());
  ASSERT_TRUE(c.has(2));
  h.run_for(100ms);
  const std::vector<uint8_t>& big = big_content();
  const std::size_t start = c.got.find("\r\n\r\n") + 4;
  ASSERT_GE(c.got.size(), start + big.size());
  EXPECT_EQ(std::memcmp(big.data(), c.got.data() + start, big.size()), 0);  // byte-exact
  EXPECT_TRUE(c.got.ends_with(std::string(digits)));
  EXPECT_EQ(c.statuses().front(), 200);
}

}  // namespace
}  // namespace keel::http
