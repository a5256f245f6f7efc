// The request line (RFC 9112 §3): methods, the four target forms, versions
// and the line's limits. Every input is parsed at every split point.
#include <gtest/gtest.h>

#include "parse_support.hpp"

namespace keel::http::test {
namespace {

constexpr std::string_view host = "Host: example.com\r\n";

std::string request(std::string_view line, std::string_view fields = host) {
  return std::string(line) + "\r\n" + std::string(fields) + "\r\n";
}

TEST(RequestLine, OriginForm) {
  RequestParser p;
  const Outcome o = parse_everywhere(request("GET /a/b?x=1&y=%20 HTTP/1.1"));
  EXPECT_EQ(o.events, "HD");
  EXPECT_EQ(o.error, ParseError::none);
  EXPECT_EQ(o.request,
            "GET [GET] /a/b?x=1&y=%20 form=0 authority= path=/a/b query=x=1&y=%20 1.1 framing=0 "
            "length=0 keep_alive=1 expect=0\nHost: example.com\n");
}

TEST(RequestLine, AbsoluteForm) {
  // RFC 9112 §3.2.2: a server MUST accept it; the authority is the host.
  const std::string in = request("GET http://www.example.org:8080/pub/WWW?q HTTP/1.1");
  RequestParser p;
  ASSERT_EQ(p.parse(in).event, ParseEvent::headers_done);
  EXPECT_EQ(p.request().form, TargetForm::absolute);
  EXPECT_EQ(p.request().authority, "www.example.org:8080");
  EXPECT_EQ(p.request().path, "/pub/WWW");
  EXPECT_EQ(p.request().query, "q");
  EXPECT_EQ(p.request().host(), "www.example.org:8080");
  EXPECT_EQ(parse_everywhere(in).error, ParseError::none);
  // An empty path is "/" (§3.2.1); the scheme is case-insensitive.
  RequestParser q;
  ASSERT_EQ(q.parse(request("GET HTTPS://[2001:db8::1]?x HTTP/1.1")).event,
            ParseEvent::headers_done);
  EXPECT_EQ(q.request().path, "/");
  EXPECT_EQ(q.request().authority, "[2001:db8::1]");
  EXPECT_EQ(q.request().query, "x");
}

TEST(RequestLine, AbsoluteFormRefusals) {
  EXPECT_EQ(verdict(request("GET http:///path HTTP/1.1")), ParseError::bad_target);  // empty host
  EXPECT_EQ(verdict(request("GET http://user@host/ HTTP/1.1")), ParseError::bad_target);
  EXPECT_EQ(verdict(request("GET ftp://host/ HTTP/1.1")), ParseError::bad_target);
  EXPECT_EQ(verdict(request("GET http:/host/ HTTP/1.1")), ParseError::bad_target);
  EXPECT_EQ(verdict(request("GET http://host:99999/ HTTP/1.1")), ParseError::bad_target);
  EXPECT_EQ(verdict(request("GET host/path HTTP/1.1")), ParseError::bad_target);
}

TEST(RequestLine, AsteriskFormOnlyForOptions) {
  RequestParser p;
  ASSERT_EQ(p.parse(request("OPTIONS * HTTP/1.1")).event, ParseEvent::headers_done);
  EXPECT_EQ(p.request().form, TargetForm::asterisk);
  EXPECT_EQ(verdict(request("OPTIONS * HTTP/1.1")), ParseError::none);
  EXPECT_EQ(verdict(request("GET * HTTP/1.1")), ParseError::bad_target);
}

TEST(RequestLine, AuthorityFormOnlyForConnect) {
  RequestParser p;
  ASSERT_EQ(p.parse(request("CONNECT server.example.com:443 HTTP/1.1")).event,
            ParseEvent::headers_done);
  EXPECT_EQ(p.request().form, TargetForm::authority);
  EXPECT_EQ(p.request().authority, "server.example.com:443");
  EXPECT_EQ(verdict(request("CONNECT [::1]:80 HTTP/1.1")), ParseError::none);
  // RFC 9110 §9.3.6: host and port, both required.
  EXPECT_EQ(verdict(request("CONNECT server.example.com HTTP/1.1")), ParseError::bad_target);
  EXPECT_EQ(verdict(request("CONNECT server.example.com: HTTP/1.1")), ParseError::bad_target);
  EXPECT_EQ(verdict(request("CONNECT /path HTTP/1.1")), ParseError::bad_target);
  EXPECT_EQ(verdict(request("GET server.example.com:443 HTTP/1.1")), ParseError::bad_target);
}

TEST(RequestLine, TargetCharacters) {
  for (std::string_view bad : {"/a b", "/a#frag", "/a\"b", "/a<b>", "/a\\b", "/a{b}", "/a|b",
                               "/a^b", "/a`b", "/\x7f", "/\xc3\xa9", "/%", "/%4", "/%zz"}) {
    SCOPED_TRACE(bad);
    const ParseError e = verdict(request("GET " + std::string(bad) + " HTTP/1.1"));
    // "/a b" has three spaces: that is not a request line at all.
    EXPECT_TRUE(e == ParseError::bad_target || e == ParseError::bad_version) << to_string(e);
  }
  EXPECT_EQ(verdict(request("GET /%41%2f;p=1,2:@!$&'()*+=-._~ HTTP/1.1")), ParseError::none);
}

TEST(RequestLine, Methods) {
  RequestParser p;
  ASSERT_EQ(p.parse(request("PATCH / HTTP/1.1")).event, ParseEvent::headers_done);
  EXPECT_EQ(p.request().method, Method::patch);
  // Unknown and lower-case methods parse; the router answers 501 (RFC 9110 §9.1).
  RequestParser q;
  ASSERT_EQ(q.parse(request("get / HTTP/1.1")).event, ParseEvent::headers_done);
  EXPECT_EQ(q.request().method, Method::other);
  EXPECT_EQ(q.request().method_text, "get");
  EXPECT_EQ(verdict(request("BREW / HTTP/1.1")), ParseError::none);
  EXPECT_EQ(verdict(request("G(T / HTTP/1.1")), ParseError::bad_request_line);
}

TEST(RequestLine, Versions) {
  RequestParser p;
  ASSERT_EQ(p.parse(request("GET / HTTP/1.0", "")).event, ParseEvent::headers_done);
  EXPECT_EQ(p.request().version_minor, 0);
  EXPECT_FALSE(p.request().keep_alive);
  // RFC 9110 §2.5: HTTP/1.2 is processed as HTTP/1.1.
  RequestParser q;
  ASSERT_EQ(q.parse(request("GET / HTTP/1.2")).event, ParseEvent::headers_done);
  EXPECT_EQ(q.request().version_minor, 1);

  EXPECT_EQ(verdict(request("GET / HTTP/2.0")), ParseError::unsupported_version);
  EXPECT_EQ(verdict(request("GET / HTTP/0.9")), ParseError::unsupported_version);
  EXPECT_EQ(status_of(ParseError::unsupported_version), 505);
  for (std::string_view bad :
       {"http/1.1", "HTTP/1.10", "HTTP/1", "HTTP/1.1 ", "HTTP/ 1.1", "HTTP/1,1", "HTTPS/1.1", ""}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(verdict(request("GET / " + std::string(bad))), ParseError::bad_version);
  }
}

TEST(RequestLine, Whitespace) {
  EXPECT_EQ(verdict(request("GET  / HTTP/1.1")), ParseError::bad_request_line);
  EXPECT_EQ(verdict(request("GET\t/ HTTP/1.1")), ParseError::bad_request_line);
  EXPECT_EQ(verdict(request(" GET / HTTP/1.1")), ParseError::bad_request_line);
  EXPECT_EQ(verdict(request("GET")), ParseError::bad_request_line);
}

TEST(RequestLine, EmptyLinesBeforeAreIgnored) {
  // RFC 9112 §2.2: a server SHOULD ignore at least one empty line first.
  const Outcome o = parse_everywhere("\r\n\r\n" + request("GET / HTTP/1.1"));
  EXPECT_EQ(o.events, "HD");
  EXPECT_EQ(o.consumed, 4 + request("GET / HTTP/1.1").size());
  // ... but not without end: they count against max_request_line.
  Limits limits;
  limits.max_request_line = 32;
  EXPECT_EQ(verdict(std::string(16 * 2, '\n') + request("GET / HTTP/1.1"), limits),
            ParseError::bare_lf);
  std::string crlfs;
  for (int i = 0; i < 16; ++i) crlfs += "\r\n";
  EXPECT_EQ(verdict(crlfs + request("GET / HTTP/1.1"), limits), ParseError::none);
  EXPECT_EQ(verdict(crlfs + "\r\n" + request("GET / HTTP/1.1"), limits),
            ParseError::bad_request_line);
}

TEST(RequestLine, LineEndings) {
  EXPECT_EQ(verdict("GET / HTTP/1.1\nHost: a\r\n\r\n"), ParseError::bare_lf);
  EXPECT_EQ(verdict("GET / HTTP/1.1\r\nHost: a\n\r\n"), ParseError::bare_lf);
  EXPECT_EQ(verdict("GET / HTTP/1.1\r\nHost: a\r\n\n"), ParseError::bare_lf);
  EXPECT_EQ(verdict("GET /\r HTTP/1.1\r\nHost: a\r\n\r\n"), ParseError::bare_cr);
  EXPECT_EQ(verdict("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n"), ParseError::bare_cr);
}

TEST(RequestLine, Limits) {
  Limits limits;
  limits.max_request_line = 32;
  const std::string fits = "GET /" + std::string(18, 'a') + " HTTP/1.1";  // 32 bytes
  ASSERT_EQ(fits.size(), 32u);
  EXPECT_EQ(verdict(request(fits), limits), ParseError::none);
  EXPECT_EQ(verdict(request("GET /" + std::string(19, 'a') + " HTTP/1.1"), limits),
            ParseError::request_line_too_long);
  EXPECT_EQ(verdict(request("GET /" + std::string(100, 'a') + " HTTP/1.1"), limits),
            ParseError::target_too_long);
  EXPECT_EQ(status_of(ParseError::target_too_long), 414);
  EXPECT_EQ(verdict(request(std::string(40, 'G') + " / HTTP/1.1"), limits),
            ParseError::method_too_long);
  EXPECT_EQ(status_of(ParseError::method_too_long), 501);
  // Refused before the end of the line arrives: the parser holds no more.
  RequestParser p(limits);
  EXPECT_EQ(p.parse("GET /" + std::string(27, 'a')).event, ParseEvent::need_more);
  EXPECT_EQ(p.parse("a").event, ParseEvent::error);
  EXPECT_EQ(p.error(), ParseError::target_too_long);
}

}  // namespace
}  // namespace keel::http::test
