// Host micro-benchmark of the request parser alone (no sockets): the
// median time to parse one request, for a browser-like GET with a dozen
// fields and for a small chunked POST, whole and fed in 64-byte pieces,
// beside a probe of this machine's memcpy over the same bytes (a floor:
// any parser reads every byte once). Not yet a `keel bench` row: the
// server (issue 23) is what will be measured end to end.
//
//   http_parser_bench [ROUNDS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "keel/http/request_parser.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using keel::http::ParseEvent;
using keel::http::RequestParser;

constexpr int requests_per_round = 20'000;

const std::string browser_get =
    "GET /api/items/42?fields=name,price HTTP/1.1\r\n"
    "Host: www.example.com\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
    "Accept-Language: en-US,en;q=0.5\r\n"
    "Accept-Encoding: gzip, deflate, br\r\n"
    "Connection: keep-alive\r\n"
    "Cookie: session=0123456789abcdef0123456789abcdef; theme=dark\r\n"
    "Upgrade-Insecure-Requests: 1\r\n"
    "Sec-Fetch-Dest: document\r\n"
    "Sec-Fetch-Mode: navigate\r\n"
    "Sec-Fetch-Site: none\r\n"
    "Priority: u=0, i\r\n"
    "\r\n";

const std::string chunked_post =
    "POST /api/items HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: application/json\r\n"
    "Transfer-Encoding: chunked\r\n\r\n"
    "10\r\n{\"name\":\"widget\"\r\nb\r\n,\"price\":3}\r\n0\r\n\r\n";

// Parses `text` `requests_per_round` times in pieces of `piece`; ns per request.
double parse_round(const std::string& text, std::size_t piece) {
  RequestParser parser;
  std::size_t body = 0;
  const auto start = Clock::now();
  for (int i = 0; i < requests_per_round; ++i) {
    parser.reset();
    bool done = false;
    for (std::size_t at = 0; at < text.size() && !done; at += piece) {
      std::string_view in = std::string_view(text).substr(at, piece);
      while (true) {
        const keel::http::ParseStep s = parser.parse(in);
        in.remove_prefix(s.consumed);
        if (s.event == ParseEvent::body) body += s.body.size();
        if (s.event == ParseEvent::error) std::abort();
        if (s.event == ParseEvent::message_done) done = true;
        if (s.event == ParseEvent::need_more || done) break;
      }
    }
    if (!done) std::abort();
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  if (body == 1) std::puts("");  // keeps `body` alive
  return ns / requests_per_round;
}

double memcpy_round(const std::string& text) {
  std::vector<char> out(text.size());
  const auto start = Clock::now();
  for (int i = 0; i < requests_per_round; ++i) {
    std::memcpy(out.data(), text.data(), text.size());
    asm volatile("" : : "r"(out.data()) : "memory");
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  return ns / requests_per_round;
}

template <typename F>
double median(int rounds, F f) {
  std::vector<double> v;
  for (int r = 0; r < rounds; ++r) v.push_back(f());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  std::printf("%-28s %6s %12s %12s\n", "request", "bytes", "ns/request", "MB/s");
  struct Case {
    const char* name;
    const std::string* text;
    std::size_t piece;
  };
  const Case cases[] = {{"GET, 13 fields, whole", &browser_get, browser_get.size()},
                        {"GET, 13 fields, 64 B pieces", &browser_get, 64},
                        {"POST chunked, whole", &chunked_post, chunked_post.size()},
                        {"POST chunked, 64 B pieces", &chunked_post, 64}};
  for (const Case& c : cases) {
    const double ns = median(rounds, [&] { return parse_round(*c.text, c.piece); });
    std::printf("%-28s %6zu %12.0f %12.0f\n", c.name, c.text->size(), ns,
                c.text->size() / ns * 1e3);
  }
  const double copy = median(rounds, [&] { return memcpy_round(browser_get); });
  std::printf("%-28s %6zu %12.1f %12.0f\n", "memcpy of the GET (floor)", browser_get.size(), copy,
              browser_get.size() / copy * 1e3);
}
