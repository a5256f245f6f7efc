// Content: Content-Length and chunked bodies (RFC 9112 §6, §7.1), trailers,
// the body limit, pipelining and reset(). Every input is parsed at every
// split point.
#include <gtest/gtest.h>

#include "parse_support.hpp"

namespace keel::http::test {
namespace {

constexpr std::string_view post = "POST /p HTTP/1.1\r\nHost: a\r\n";
constexpr std::string_view chunked =
    "POST /p HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";

std::string with_chunks(std::string_view chunks) {
  return std::string(chunked) + std::string(chunks);
}

TEST(Body, ContentLength) {
  const Outcome o = parse_everywhere(std::string(post) + "Content-Length: 5\r\n\r\nhello");
  EXPECT_EQ(o.events, "HBD");
  EXPECT_EQ(o.body, "hello");
  EXPECT_EQ(o.error, ParseError::none);
  const Outcome zero = parse_everywhere(std::string(post) + "Content-Length: 0\r\n\r\n");
  EXPECT_EQ(zero.events, "HD");
  EXPECT_EQ(parse_everywhere(std::string(post) + "Content-Length: 007\r\n\r\n1234567").body,
            "1234567");
}

TEST(Body, BodyIsASpanOfTheInput) {
  const std::string in = std::string(post) + "Content-Length: 5\r\n\r\nhello";
  RequestParser p;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  ParseStep s = p.parse(bytes);
  ASSERT_EQ(s.event, ParseEvent::headers_done);
  s = p.parse(bytes.subspan(s.consumed));
  ASSERT_EQ(s.event, ParseEvent::body);
  EXPECT_EQ(s.body.data(), bytes.data() + in.size() - 5);  // not copied
  EXPECT_EQ(p.parse(bytes.subspan(in.size())).event, ParseEvent::message_done);
}

TEST(Body, Chunked) {
  const Outcome o = parse_everywhere(with_chunks("5\r\nhello\r\n1;a=b\r\n \r\n0\r\n\r\n"));
  EXPECT_EQ(o.events, "HBD");
  EXPECT_EQ(o.body, "hello ");
  EXPECT_EQ(o.error, ParseError::none);
  // Hex, upper and lower case, leading zeros.
  EXPECT_EQ(
      parse_everywhere(with_chunks("0000A\r\n0123456789\r\nb\r\nabcdefghijk\r\n0\r\n\r\n")).body,
      "0123456789abcdefghijk");
  // "Chunked" is case-insensitive (RFC 9112 §7).
  EXPECT_EQ(parse_everywhere("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"
                             "2\r\nok\r\n0\r\n\r\n")
                .body,
            "ok");
}

TEST(Body, ChunkExtensions) {
  // RFC 9112 §7.1.1: BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ].
  for (std::string_view ok :
       {"3;x\r\n", "3 ; x = y\r\n", "3;x=\"a \\\" ;b\"\r\n", "3;a;b=c;d\r\n", "3\t;x\r\n"}) {
    SCOPED_TRACE(ok);
    const Outcome o = parse_everywhere(with_chunks(std::string(ok) + "abc\r\n0;last\r\n\r\n"));
    EXPECT_EQ(o.error, ParseError::none);
    EXPECT_EQ(o.body, "abc");
  }
  for (std::string_view bad : {"3;\r\n", "3;=y\r\n", "3;x=\r\n", "3;x=\"open\r\n", "3 \r\n",
                               "3;x y\r\n", "3;x=\"a\"b\r\n", "3;x=y \r\n", "3;x=\"\x01\"\r\n"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(verdict(with_chunks(std::string(bad) + "abc\r\n0\r\n\r\n")),
              ParseError::bad_chunk_extension);
  }
}

TEST(Body, BadChunks) {
  EXPECT_EQ(verdict(with_chunks("x\r\n")), ParseError::bad_chunk_size);
  EXPECT_EQ(verdict(with_chunks("\r\n")), ParseError::bad_chunk_size);
  EXPECT_EQ(verdict(with_chunks("-1\r\n")), ParseError::bad_chunk_size);
  EXPECT_EQ(verdict(with_chunks("+1\r\na\r\n0\r\n\r\n")), ParseError::bad_chunk_size);
  EXPECT_EQ(verdict(with_chunks("0x5\r\nhello\r\n0\r\n\r\n")), ParseError::bad_chunk_size);
  EXPECT_EQ(verdict(with_chunks(" 5\r\nhello\r\n0\r\n\r\n")), ParseError::bad_chunk_size);
  // 2^64 + 5 must not wrap to 5 (the classic overflow smuggle).
  EXPECT_EQ(verdict(with_chunks("10000000000000005\r\nhello\r\n0\r\n\r\n")),
            ParseError::bad_chunk_size);
  // Within 64 bits but past max_body: 413.
  EXPECT_EQ(verdict(with_chunks("ffffffffffffffff\r\n")), ParseError::body_too_large);
  EXPECT_EQ(verdict(with_chunks("5\r\nhelloX\r\n0\r\n\r\n")), ParseError::bad_chunk_end);
  EXPECT_EQ(verdict(with_chunks("5\r\nhello\n0\r\n\r\n")), ParseError::bare_lf);
  EXPECT_EQ(verdict(with_chunks("5\nhello\r\n0\r\n\r\n")), ParseError::bare_lf);
  EXPECT_EQ(verdict(with_chunks("5\r\nhello\r\n0\r\n\n")), ParseError::bare_lf);
  Limits limits;
  limits.max_chunk_line = 8;
  EXPECT_EQ(verdict(with_chunks("5;abcdefg\r\nhello\r\n0\r\n\r\n"), limits),
            ParseError::chunk_line_too_long);
  EXPECT_EQ(verdict(with_chunks("5;abcdef\r\nhello\r\n0\r\n\r\n"), limits), ParseError::none);
}

TEST(Body, Trailers) {
  RequestParser p;
  const std::string in = with_chunks("3\r\nabc\r\n0\r\nX-Sum: 42\r\nX-Other: y\r\n\r\n");
  const Outcome o = parse_everywhere(in);
  EXPECT_EQ(o.events, "HBD");
  EXPECT_NE(o.request.find("trailer X-Sum: 42\ntrailer X-Other: y\n"), std::string::npos);
  // Trailer fields follow the header rules and limits.
  EXPECT_EQ(verdict(with_chunks("0\r\nX : y\r\n\r\n")), ParseError::space_before_colon);
  EXPECT_EQ(verdict(with_chunks("0\r\n folded\r\n\r\n")), ParseError::obs_fold);
  Limits limits;
  limits.max_header_count = 2;
  EXPECT_EQ(verdict(with_chunks("0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"), limits),
            ParseError::too_many_headers);
}

TEST(Body, Limit) {
  Limits limits;
  limits.max_body = 10;
  EXPECT_EQ(verdict(std::string(post) + "Content-Length: 10\r\n\r\n0123456789", limits),
            ParseError::none);
  // Refused at the header section, before any of it is read.
  EXPECT_EQ(verdict(std::string(post) + "Content-Length: 11\r\n\r\n", limits),
            ParseError::body_too_large);
  EXPECT_EQ(verdict(std::string(post) + "Content-Length: 99999999999999999999999\r\n\r\n", limits),
            ParseError::body_too_large);
  EXPECT_EQ(status_of(ParseError::body_too_large), 413);
  EXPECT_EQ(verdict(with_chunks("5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n"), limits),
            ParseError::none);
  const Outcome o = parse_everywhere(with_chunks("5\r\n01234\r\n6\r\n567890\r\n0\r\n\r\n"), limits);
  EXPECT_EQ(o.error, ParseError::body_too_large);
  EXPECT_EQ(o.body, "01234");  // the first chunk was handed out before the second was refused
}

TEST(Body, ChunkedRefusedGets411) {
  Limits limits;
  limits.chunked_bodies = false;
  EXPECT_EQ(verdict(with_chunks("0\r\n\r\n"), limits), ParseError::chunked_not_accepted);
  EXPECT_EQ(status_of(ParseError::chunked_not_accepted), 411);
}

TEST(Body, PipelinedRequestsAreLeftForTheNextParse) {
  const std::string first = std::string(post) + "Content-Length: 3\r\n\r\nabc";
  const std::string second = with_chunks("2\r\nde\r\n0\r\n\r\n");
  const std::string third = "GET /3 HTTP/1.1\r\nHost: a\r\n\r\n";
  const std::string all = first + second + third;
  // Whatever the split, the first request ends where it ends.
  const Outcome o = parse_everywhere(all);
  EXPECT_EQ(o.consumed, first.size());
  EXPECT_EQ(o.body, "abc");

  RequestParser p;
  std::string_view in = all;
  std::vector<std::string> bodies;
  std::vector<std::string> paths;
  std::string body;
  while (true) {  // until need_more: a request without a body ends with no input left
    const ParseStep s = p.parse(in);
    in.remove_prefix(s.consumed);
    if (s.event == ParseEvent::need_more) break;
    ASSERT_NE(s.event, ParseEvent::error);
    if (s.event == ParseEvent::body)
      body.append(reinterpret_cast<const char*>(s.body.data()), s.body.size());
    if (s.event == ParseEvent::message_done) {
      paths.push_back(p.request().path);
      bodies.push_back(body);
      body.clear();
      // A message_done repeats until reset().
      EXPECT_EQ(p.parse(in).event, ParseEvent::message_done);
      EXPECT_EQ(p.parse(in).consumed, 0u);
      p.reset();
    }
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"/p", "/p", "/3"}));
  EXPECT_EQ(bodies, (std::vector<std::string>{"abc", "de", ""}));
}

TEST(Body, ErrorIsFinal) {
  RequestParser p;
  EXPECT_EQ(p.parse("GET / HTTP/1.1\r\nHost : a\r\n").event, ParseEvent::error);
  const ParseStep s = p.parse("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
  EXPECT_EQ(s.event, ParseEvent::error);
  EXPECT_EQ(s.consumed, 0u);
  p.reset();
  EXPECT_EQ(p.parse("GET / HTTP/1.1\r\nHost: a\r\n\r\n").event, ParseEvent::headers_done);
}

}  // namespace
}  // namespace keel::http::test
