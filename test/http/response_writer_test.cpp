// The response writer: framing by request and status, Date and Server
// once, chunked content, and back-pressure through a bounded OutputBuffer.
#include "keel/http/response_writer.hpp"

#include <gtest/gtest.h>

#include <ctime>
#include <random>

#include "keel/http/request_parser.hpp"

namespace keel::http {
namespace {

constexpr int64_t now = 784111777;  // RFC 9110 §5.6.7's example
constexpr std::string_view date = "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n";

Request parsed(std::string_view text) {
  RequestParser p;
  EXPECT_EQ(p.parse(text).event, ParseEvent::headers_done) << text;
  return p.request();
}

std::string drain(OutputBuffer& out) {
  const auto pending = out.pending();
  std::string s(reinterpret_cast<const char*>(pending.data()), pending.size());
  out.consume(pending.size());
  return s;
}

const Request get11 = parsed("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
const Request head11 = parsed("HEAD / HTTP/1.1\r\nHost: a\r\n\r\n");
const Request get10 = parsed("GET / HTTP/1.0\r\n\r\n");
const Request get10_keep = parsed("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
const Request close11 = parsed("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");

TEST(HttpDate, ImfFixdate) {
  EXPECT_EQ(format_http_date(now), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(format_http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(format_http_date(951782400), "Tue, 29 Feb 2000 00:00:00 GMT");
  EXPECT_EQ(format_http_date(4102444799), "Thu, 31 Dec 2099 23:59:59 GMT");
}

// Against the C library's own calendar (gmtime_r, strftime in the C locale) for years 1000 to
// 9999, where %Y gives IMF-fixdate's four digits.
TEST(HttpDate, AgreesWithTheCLibrary) {
  constexpr int64_t year_1000 = -30610224000, year_10000 = 253402300800;
  std::mt19937_64 random(7);
  for (int i = 0; i < 20000; ++i) {
    const int64_t t = year_1000 + int64_t(random() % uint64_t(year_10000 - year_1000));
    const std::time_t c = std::time_t(t);
    std::tm tm{};
    ASSERT_NE(gmtime_r(&c, &tm), nullptr);
    char expected[64];
    ASSERT_GT(std::strftime(expected, sizeof expected, "%a, %d %b %Y %H:%M:%S GMT", &tm), 0u);
    ASSERT_EQ(format_http_date(t), expected) << t;
  }
}

TEST(ResponseWriter, ContentLength) {
  OutputBuffer out(1024);
  ResponseWriter w(out, get11);
  Response r;
  r.set("Content-Type", "text/plain");
  r.content_length = 5;
  ASSERT_EQ(w.write_head(r, now), WriteStatus::ok);
  std::string_view body = "hello";
  ASSERT_EQ(w.write_body(body), WriteStatus::ok);
  ASSERT_EQ(w.finish(), WriteStatus::ok);
  EXPECT_EQ(drain(out), "HTTP/1.1 200 OK\r\n" + std::string(date) +
                            "Server: Keel\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n"
                            "hello");
  EXPECT_TRUE(w.keep_alive());
  EXPECT_TRUE(w.finished());
}

TEST(ResponseWriter, DirectContentIsCountedNotWritten) {
  // Content the server sends itself (respond_static): counted against
  // Content-Length, nothing in the buffer; HEAD says not to send it.
  OutputBuffer out(1024);
  ResponseWriter w(out, get11);
  Response r;
  r.content_length = 10;
  ASSERT_EQ(w.write_head(r, now), WriteStatus::ok);
  const std::size_t head_size = out.size();
  std::string_view first = "abc";
  ASSERT_EQ(w.write_body(first), WriteStatus::ok);
  bool send = false;
  ASSERT_EQ(w.write_body_direct(7, send), WriteStatus::ok);
  EXPECT_TRUE(send);
  EXPECT_EQ(out.size(), head_size + 3);
  EXPECT_EQ(w.finish(), WriteStatus::ok);  // 3 + 7: the length is met

  ResponseWriter past(out, get11);
  ASSERT_EQ(past.write_head(r, now), WriteStatus::ok);
  EXPECT_EQ(past.write_body_direct(11, send), WriteStatus::invalid);

  ResponseWriter head(out, head11);
  ASSERT_EQ(head.write_head(r, now), WriteStatus::ok);
  EXPECT_EQ(head.write_body_direct(10, send), WriteStatus::ok);
  EXPECT_FALSE(send);

  ResponseWriter chunked(out, get11);  // no length: chunk lines would be needed
  ASSERT_EQ(chunked.write_head(Response{}, now), WriteStatus::ok);
  EXPECT_EQ(chunked.write_body_direct(10, send), WriteStatus::invalid);
}

TEST(ResponseWriter, DateAndServerOnce) {
  OutputBuffer out(1024);
  ResponseWriter w(out, get11, {.server = "test/1"});
  Response r;
  r.set("date", "Mon, 07 Nov 1994 00:00:00 GMT").set("SERVER", "mine");
  r.content_length = 0;
  ASSERT_EQ(w.write_head(r, now), WriteStatus::ok);
  EXPECT_EQ(drain(out),
            "HTTP/1.1 200 OK\r\ndate: Mon, 07 Nov 1994 00:00:00 GMT\r\nSERVER: mine\r\n"
            "Content-Length: 0\r\n\r\n");
  OutputBuffer out2(1024);
  ResponseWriter w2(out2, get11, {.server = ""});
  Response r2;
  r2.content_length = 0;
  ASSERT_EQ(w2.write_head(r2, now), WriteStatus::ok);
  EXPECT_EQ(drain(out2), "HTTP/1.1 200 OK\r\n" + std::string(date) + "Content-Length: 0\r\n\r\n");
}

TEST(ResponseWriter, ChunkedWhenTheLengthIsUnknown) {
  OutputBuffer out(1024);
  ResponseWriter w(out, get11);
  ASSERT_EQ(w.write_head(Response{}, now), WriteStatus::ok);
  std::string_view a = "hello ";
  std::string_view b = "world, this is chunk two";
  ASSERT_EQ(w.write_body(a), WriteStatus::ok);
  ASSERT_EQ(w.write_body(b), WriteStatus::ok);
  ASSERT_EQ(w.finish({{"X-Checksum", "1"}}), WriteStatus::ok);
  EXPECT_EQ(drain(out),
            "HTTP/1.1 200 OK\r\n" + std::string(date) +
                "Server: Keel\r\nTransfer-Encoding: chunked\r\n\r\n"
                "6\r\nhello \r\n18\r\nworld, this is chunk two\r\n0\r\nX-Checksum: 1\r\n\r\n");
  EXPECT_TRUE(w.keep_alive());
}

TEST(ResponseWriter, Http10ContentEndsWithTheConnection) {
  OutputBuffer out(1024);
  ResponseWriter w(out, get10_keep);
  ASSERT_EQ(w.write_head(Response{}, now), WriteStatus::ok);
  std::string_view body = "abc";
  ASSERT_EQ(w.write_body(body), WriteStatus::ok);
  ASSERT_EQ(w.finish(), WriteStatus::ok);
  // The status line has our version, 1.1 (RFC 9110 §6.2), the framing the request's.
  EXPECT_EQ(drain(out), "HTTP/1.1 200 OK\r\n" + std::string(date) +
                            "Server: Keel\r\nConnection: close\r\n\r\nabc");
  EXPECT_FALSE(w.keep_alive());
  // With a length it persists, and says so (RFC 9112 §9.3).
  ResponseWriter k(out, get10_keep);
  Response r;
  r.content_length = 0;
  ASSERT_EQ(k.write_head(r, now), WriteStatus::ok);
  EXPECT_NE(drain(out).find("Connection: keep-alive\r\n"), std::string::npos);
  EXPECT_TRUE(k.keep_alive());
  // A plain HTTP/1.0 request is not persistent.
  ResponseWriter c(out, get10);
  ASSERT_EQ(c.write_head(r, now), WriteStatus::ok);
  EXPECT_NE(drain(out).find("Connection: close\r\n"), std::string::npos);
  EXPECT_FALSE(c.keep_alive());
}

TEST(ResponseWriter, NoContentForHead204And304) {
  OutputBuffer out(1024);
  {
    ResponseWriter w(out, head11);
    Response r;
    r.content_length = 1234;  // the GET's
    ASSERT_EQ(w.write_head(r, now), WriteStatus::ok);
    std::string_view body = "ignored";
    ASSERT_EQ(w.write_body(body), WriteStatus::ok);
    EXPECT_TRUE(body.empty());
    ASSERT_EQ(w.finish(), WriteStatus::ok);
    const std::string s = drain(out);
    EXPECT_NE(s.find("Content-Length: 1234\r\n\r\n"), std::string::npos);
    EXPECT_EQ(s.substr(s.size() - 4), "\r\n\r\n");  // no content
    EXPECT_TRUE(w.keep_alive());
  }
  {
    ResponseWriter w(out, get11);
    Response r;
    r.status = status::no_content;
    r.content_length = 10;
    ASSERT_EQ(w.write_head(r, now), WriteStatus::ok);
    ASSERT_EQ(w.finish(), WriteStatus::ok);
    // RFC 9110 §8.6: no Content-Length in a 204; no Transfer-Encoding either.
    EXPECT_EQ(drain(out),
              "HTTP/1.1 204 No Content\r\n" + std::string(date) + "Server: Keel\r\n\r\n");
  }
  {
    ResponseWriter w(out, get11);
    Response r;
    r.status = status::not_modified;
    ASSERT_EQ(w.write_head(r, now), WriteStatus::ok);
    ASSERT_EQ(w.finish(), WriteStatus::ok);
    EXPECT_EQ(drain(out),
              "HTTP/1.1 304 Not Modified\r\n" + std::string(date) + "Server: Keel\r\n\r\n");
  }
}

TEST(ResponseWriter, Interim100Continue) {
  OutputBuffer out(1024);
  ResponseWriter w(out, get11);
  ASSERT_EQ(w.write_interim(status::continue_), WriteStatus::ok);
  EXPECT_EQ(drain(out), "HTTP/1.1 100 Continue\r\n\r\n");
  EXPECT_EQ(w.write_interim(status::ok), WriteStatus::invalid);
  ResponseWriter old(out, get10);
  EXPECT_EQ(old.write_interim(status::continue_), WriteStatus::invalid);
}

TEST(ResponseWriter, CloseWhenAskedOrRequested) {
  OutputBuffer out(1024);
  Response r;
  r.content_length = 0;
  ResponseWriter a(out, close11);
  ASSERT_EQ(a.write_head(r, now), WriteStatus::ok);
  EXPECT_NE(drain(out).find("Connection: close\r\n"), std::string::npos);
  EXPECT_FALSE(a.keep_alive());
  r.close = true;
  ResponseWriter b(out, get11);
  ASSERT_EQ(b.write_head(r, now), WriteStatus::ok);
  EXPECT_FALSE(b.keep_alive());
}

TEST(ResponseWriter, RefusesFramingAndInjectedFields) {
  OutputBuffer out(1024);
  for (Field f : {Field{"Content-Length", "3"}, Field{"transfer-encoding", "chunked"},
                  Field{"Connection", "close"}, Field{"X", "a\r\nSet-Cookie: evil"},
                  Field{"X Y", "z"}, Field{"", "z"}, Field{"X", std::string("a\0b", 3)}}) {
    SCOPED_TRACE(f.name);
    ResponseWriter w(out, get11);
    Response r;
    r.fields.push_back(f);
    EXPECT_EQ(w.write_head(r, now), WriteStatus::invalid);
    EXPECT_TRUE(out.empty());
  }
}

TEST(ResponseWriter, ContentMustMatchContentLength) {
  OutputBuffer out(1024);
  Response r;
  r.content_length = 3;
  ResponseWriter over(out, get11);
  ASSERT_EQ(over.write_head(r, now), WriteStatus::ok);
  std::string_view four = "abcd";
  EXPECT_EQ(over.write_body(four), WriteStatus::invalid);
  EXPECT_FALSE(over.keep_alive());
  ResponseWriter short_(out, get11);
  ASSERT_EQ(short_.write_head(r, now), WriteStatus::ok);
  std::string_view two = "ab";
  ASSERT_EQ(short_.write_body(two), WriteStatus::ok);
  EXPECT_EQ(short_.finish(), WriteStatus::invalid);  // the connection must close
  EXPECT_FALSE(short_.keep_alive());
}

TEST(ResponseWriter, BackPressureBoundsTheOutput) {
  // 100 KB of content through a 256-byte buffer: never more than 256 bytes
  // held, and the bytes that come out decode to the content.
  constexpr std::size_t capacity = 256;
  OutputBuffer out(capacity);
  ResponseWriter w(out, get11);
  ASSERT_EQ(w.write_head(Response{}, now), WriteStatus::ok);
  std::string content;
  for (int i = 0; content.size() < 100'000; ++i) content += std::to_string(i) + ",";
  std::string wire = drain(out);
  std::string_view rest = content;
  std::size_t blocked = 0;
  while (!rest.empty()) {
    const WriteStatus s = w.write_body(rest);
    EXPECT_LE(out.size(), capacity);
    if (s == WriteStatus::would_block) {
      ++blocked;
      // The peer reads only 100 bytes at a time.
      const auto pending = out.pending().first(std::min<std::size_t>(100, out.size()));
      wire.append(reinterpret_cast<const char*>(pending.data()), pending.size());
      out.consume(pending.size());
    }
  }
  while (w.finish() == WriteStatus::would_block) wire += drain(out);
  wire += drain(out);
  EXPECT_GT(blocked, 100u);
  // Decode with the request parser's chunked decoder: a request head plus
  // the response's content is a chunked request.
  const std::size_t body_at = wire.find("\r\n\r\n") + 4;
  Limits limits;
  limits.max_body = 1 << 20;
  RequestParser p(limits);
  const std::string holder =
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + wire.substr(body_at);
  std::string decoded;
  std::string_view rest_in = holder;
  while (true) {
    const ParseStep s = p.parse(rest_in);
    rest_in.remove_prefix(s.consumed);
    ASSERT_NE(s.event, ParseEvent::error) << to_string(p.error());
    if (s.event == ParseEvent::body)
      decoded.append(reinterpret_cast<const char*>(s.body.data()), s.body.size());
    if (s.event == ParseEvent::message_done || s.event == ParseEvent::need_more) break;
  }
  EXPECT_EQ(decoded, content);
  EXPECT_TRUE(rest_in.empty());
}

TEST(ResponseWriter, HeadWaitsForRoomAndRefusesWhatNeverFits) {
  OutputBuffer out(100);  // the head is 75 bytes
  ASSERT_TRUE(out.append(std::string(40, 'x')));
  ResponseWriter w(out, get11, {.server = ""});
  Response r;
  r.content_length = 0;
  EXPECT_EQ(w.write_head(r, now), WriteStatus::would_block);
  EXPECT_EQ(out.size(), 40u);  // nothing taken
  out.consume(40);
  EXPECT_EQ(w.write_head(r, now), WriteStatus::ok);
  ResponseWriter big(out, get11);
  Response huge;
  huge.set("X", std::string(200, 'y'));
  EXPECT_EQ(big.write_head(huge, now), WriteStatus::too_large);
}

}  // namespace
}  // namespace keel::http
