// Header fields (RFC 9112 §5, RFC 9110 §5), Host (RFC 9112 §3.2) and the
// header limits. Every input is parsed at every split point.
#include <gtest/gtest.h>

#include "parse_support.hpp"

namespace keel::http::test {
namespace {

std::string with_fields(std::string_view fields) {
  return "GET / HTTP/1.1\r\n" + std::string(fields) + "\r\n";
}

TEST(HeaderFields, ValuesAreTrimmedAndKept) {
  RequestParser p;
  const std::string in =
      with_fields("Host: a\r\nX-A:  \t v a l \t \r\nx-empty:\r\nX-Obs: caf\xc3\xa9\r\n");
  ASSERT_EQ(p.parse(in).event, ParseEvent::headers_done);
  ASSERT_EQ(p.request().fields.size(), 4u);
  EXPECT_EQ(p.request().fields[1].value, "v a l");
  EXPECT_EQ(p.request().fields[2].value, "");
  EXPECT_EQ(*p.request().field("X-OBS"), "caf\xc3\xa9");  // obs-text is allowed
  EXPECT_EQ(p.request().field("missing"), nullptr);
  EXPECT_EQ(parse_everywhere(in).events, "HD");
}

TEST(HeaderFields, Refusals) {
  struct Case {
    std::string_view fields;
    ParseError error;
  };
  const Case cases[] = {
      {"Host: a\r\n folded\r\n", ParseError::obs_fold},  // RFC 9112 §5.2
      {"Host: a\r\nX: a\r\n\tfolded\r\n", ParseError::obs_fold},
      {" Host: a\r\n", ParseError::obs_fold},            // §2.2: after the start line
      {"Host : a\r\n", ParseError::space_before_colon},  // §5.1
      {"Host\t: a\r\n", ParseError::space_before_colon},
      {"Host: a\r\nNo colon\r\n", ParseError::missing_colon},
      {"Host: a\r\n: empty name\r\n", ParseError::bad_field_name},
      {"Host: a\r\nX(y): z\r\n", ParseError::bad_field_name},
      {"Host: a\r\nX\"y: z\r\n", ParseError::bad_field_name},
      {"Host: a\r\nX\xc3\xa9: z\r\n", ParseError::bad_field_name},
      {std::string_view("Host: a\r\nX: a\0b\r\n", 18), ParseError::bad_field_value},
      {"Host: a\r\nX: a\x01z\r\n", ParseError::bad_field_value},
      {"Host: a\r\nX: a\x7fz\r\n", ParseError::bad_field_value},
      {"Host: a\r\nX: a\x1bz\r\n", ParseError::bad_field_value},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fields);
    EXPECT_EQ(verdict(with_fields(c.fields)), c.error);
    EXPECT_EQ(status_of(c.error), 400);
  }
  // HTAB inside a value is allowed (RFC 9110 §5.5).
  EXPECT_EQ(verdict(with_fields("Host: a\r\nX: a\tb\r\n")), ParseError::none);
}

TEST(HeaderFields, Host) {
  EXPECT_EQ(verdict("GET / HTTP/1.1\r\n\r\n"), ParseError::missing_host);
  EXPECT_EQ(verdict(with_fields("Host: a\r\nHost: a\r\n")), ParseError::duplicate_host);
  EXPECT_EQ(verdict(with_fields("Host: a\r\nhost: b\r\n")), ParseError::duplicate_host);
  EXPECT_EQ(verdict(with_fields("Host: a b\r\n")), ParseError::bad_host);
  EXPECT_EQ(verdict(with_fields("Host: user@a\r\n")), ParseError::bad_host);
  EXPECT_EQ(verdict(with_fields("Host: a:x\r\n")), ParseError::bad_host);
  EXPECT_EQ(verdict(with_fields("Host: a/b\r\n")), ParseError::bad_host);
  EXPECT_EQ(verdict(with_fields("Host: [::1\r\n")), ParseError::bad_host);
  EXPECT_EQ(status_of(ParseError::missing_host), 400);
  for (std::string_view ok :
       {"Host: a.example:8080\r\n", "Host: [2001:db8::1]:80\r\n", "Host: 192.0.2.1\r\n",
        "Host:\r\n", "Host: xn--caf-dma.example\r\n"}) {
    SCOPED_TRACE(ok);
    EXPECT_EQ(verdict(with_fields(ok)), ParseError::none);
  }
  // HTTP/1.0 needs no Host; absolute-form's authority wins over Host (§3.2.2).
  EXPECT_EQ(verdict("GET / HTTP/1.0\r\n\r\n"), ParseError::none);
  EXPECT_EQ(verdict("GET http://x/ HTTP/1.1\r\n\r\n"), ParseError::missing_host);
  RequestParser p;
  ASSERT_EQ(p.parse("GET http://x/ HTTP/1.1\r\nHost: y\r\n\r\n").event, ParseEvent::headers_done);
  EXPECT_EQ(p.request().host(), "x");
}

TEST(HeaderFields, ByteLimit) {
  Limits limits;
  limits.max_header_bytes = 20;
  // "Host: a" (7) + "X: 0123456789" (13) = 20 bytes of field lines.
  EXPECT_EQ(verdict(with_fields("Host: a\r\nX: 0123456789\r\n"), limits), ParseError::none);
  EXPECT_EQ(verdict(with_fields("Host: a\r\nX: 01234567890\r\n"), limits),
            ParseError::header_too_large);
  EXPECT_EQ(verdict(with_fields("Host: a\r\nX: 0123456789" + std::string(1000, 'x')), limits),
            ParseError::header_too_large);
  EXPECT_EQ(status_of(ParseError::header_too_large), 431);
  // Refused as soon as the partial line passes the limit.
  RequestParser p(limits);
  EXPECT_EQ(p.parse("GET / HTTP/1.1\r\nHost: a\r\nX: 0123456789").event, ParseEvent::need_more);
  const ParseStep s = p.parse("x");
  EXPECT_EQ(s.event, ParseEvent::error);
  EXPECT_EQ(p.error(), ParseError::header_too_large);
}

TEST(HeaderFields, CountLimit) {
  Limits limits;
  limits.max_header_count = 3;
  EXPECT_EQ(verdict(with_fields("Host: a\r\nA: 1\r\nB: 2\r\n"), limits), ParseError::none);
  EXPECT_EQ(verdict(with_fields("Host: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n"), limits),
            ParseError::too_many_headers);
  EXPECT_EQ(status_of(ParseError::too_many_headers), 431);
}

TEST(HeaderFields, KeepAlive) {
  // RFC 9112 §9.3.
  auto keep_alive = [](std::string_view in) {
    RequestParser p;
    EXPECT_EQ(p.parse(in).event, ParseEvent::headers_done) << in;
    return p.request().keep_alive;
  };
  EXPECT_TRUE(keep_alive("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
  EXPECT_FALSE(keep_alive("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"));
  EXPECT_FALSE(keep_alive("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n"));
  EXPECT_FALSE(
      keep_alive("GET / HTTP/1.1\r\nHost: a\r\nConnection: x\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(keep_alive("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n"));
  EXPECT_FALSE(keep_alive("GET / HTTP/1.0\r\n\r\n"));
  EXPECT_TRUE(keep_alive("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
  EXPECT_FALSE(keep_alive("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n"));
  EXPECT_FALSE(keep_alive("GET / HTTP/1.0\r\nConnection: closed\r\n\r\n"));
}

TEST(HeaderFields, Expect) {
  // RFC 9110 §10.1.1.
  RequestParser p;
  const std::string in =
      "PUT /f HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\nabc";
  ASSERT_EQ(p.parse(in).event, ParseEvent::headers_done);
  EXPECT_TRUE(p.request().expect_continue);
  EXPECT_EQ(parse_everywhere(in).body, "abc");
  EXPECT_EQ(verdict("GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n"),
            ParseError::unsupported_expectation);
  EXPECT_EQ(status_of(ParseError::unsupported_expectation), 417);
  // HTTP/1.0: MUST be ignored.
  RequestParser q;
  ASSERT_EQ(q.parse("PUT / HTTP/1.0\r\nExpect: 100-continue\r\n\r\n").event,
            ParseEvent::headers_done);
  EXPECT_FALSE(q.request().expect_continue);
  EXPECT_EQ(verdict("GET / HTTP/1.0\r\nExpect: other\r\n\r\n"), ParseError::none);
}

}  // namespace
}  // namespace keel::http::test
