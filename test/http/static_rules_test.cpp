// The parsers behind static files (lib/http/static/rules.hpp): HTTP-dates,
// entity-tag lists and the order of preconditions (RFC 9110 §13), byte
// ranges (§14), Accept-Encoding with q-values (§12.5.3).
#include <gtest/gtest.h>

#include "keel/http/response_writer.hpp"
#include "request_support.hpp"
#include "static/rules.hpp"

namespace http = keel::http;
using namespace keel::http::static_detail;

namespace {

constexpr int64_t nov_6_1994 = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example)
constexpr std::string_view tag = "\"abc\"";

http::Request request(std::vector<std::pair<std::string, std::string>> fields,
                      http::Method method = http::Method::get) {
  return http::test::request_with(std::move(fields), method);
}

}  // namespace

TEST(StaticDate, TheThreeFormatsOfRfc9110) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), nov_6_1994);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), nov_6_1994);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), nov_6_1994);
  EXPECT_EQ(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
  EXPECT_EQ(parse_http_date("Tue, 29 Feb 2000 12:00:00 GMT"), 951825600);
  for (int64_t t : {int64_t(0), nov_6_1994, int64_t(1700000000), int64_t(4102444799)})
    EXPECT_EQ(parse_http_date(http::format_http_date(t)), t);
}

TEST(StaticDate, InvalidDatesAreNone) {
  for (std::string_view bad :
       {"", "yesterday", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
        "sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 31 Feb 1994 08:49:37 GMT", "Mon, 29 Feb 2100 00:00:00 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT x", "Sun, 06 Nov 94 08:49:37 GMT", "1700000000"})
    EXPECT_FALSE(parse_http_date(bad)) << bad;
}

TEST(StaticEtag, StrongAndWeakComparison) {
  EXPECT_EQ(etag_list_matches("\"abc\"", tag, TagMatch::strong), true);
  EXPECT_EQ(etag_list_matches("W/\"abc\"", tag, TagMatch::strong), false);
  EXPECT_EQ(etag_list_matches("W/\"abc\"", tag, TagMatch::weak), true);
  EXPECT_EQ(etag_list_matches("\"x\", \"abc\"", tag, TagMatch::strong), true);
  EXPECT_EQ(etag_list_matches(" ,\"x\" ,, W/\"y\" ", tag, TagMatch::weak), false);
  EXPECT_EQ(etag_list_matches("*", tag, TagMatch::strong), true);
  EXPECT_EQ(etag_list_matches("\"ABC\"", tag, TagMatch::weak), false);  // case-sensitive
  for (std::string_view bad : {"abc", "\"abc", "\"a\" \"b\"", "w/\"abc\"", "", " , ", "\"a\"x"})
    EXPECT_FALSE(etag_list_matches(bad, tag, TagMatch::weak)) << bad;
}

TEST(StaticPreconditions, NoneProceeds) {
  EXPECT_EQ(evaluate_preconditions(request({}), {tag, nov_6_1994}), Precondition::proceed);
}

TEST(StaticPreconditions, IfNoneMatchIsWeakAnd304) {
  const Validators v{tag, nov_6_1994};
  EXPECT_EQ(evaluate_preconditions(request({{"If-None-Match", "\"abc\""}}), v),
            Precondition::not_modified);
  EXPECT_EQ(evaluate_preconditions(request({{"If-None-Match", "W/\"abc\""}}), v),
            Precondition::not_modified);
  EXPECT_EQ(evaluate_preconditions(request({{"If-None-Match", "*"}}), v),
            Precondition::not_modified);
  EXPECT_EQ(evaluate_preconditions(request({{"If-None-Match", "\"other\""}}), v),
            Precondition::proceed);
  // Two fields make one list (RFC 9110 §5.3).
  EXPECT_EQ(evaluate_preconditions(
                request({{"If-None-Match", "\"x\""}, {"if-none-match", "\"abc\""}}), v),
            Precondition::not_modified);
  EXPECT_EQ(evaluate_preconditions(request({{"If-None-Match", "\"x\""}}, http::Method::head), v),
            Precondition::proceed);
}

TEST(StaticPreconditions, IfModifiedSince) {
  const Validators v{tag, nov_6_1994};
  auto ims = [&](std::string date) {
    return evaluate_preconditions(request({{"If-Modified-Since", date}}), v);
  };
  EXPECT_EQ(ims("Sun, 06 Nov 1994 08:49:37 GMT"), Precondition::not_modified);
  EXPECT_EQ(ims("Sun, 06 Nov 1994 08:49:38 GMT"), Precondition::not_modified);  // later
  EXPECT_EQ(ims("Sun, 06 Nov 1994 08:49:36 GMT"), Precondition::proceed);       // earlier
  EXPECT_EQ(ims("not a date"), Precondition::proceed);                          // §13.1.3: ignored
}

TEST(StaticPreconditions, IfNoneMatchOverridesIfModifiedSince) {
  // RFC 9110 §13.1.3: If-Modified-Since is ignored when If-None-Match is
  // present, whichever way each would go.
  const Validators v{tag, nov_6_1994};
  EXPECT_EQ(evaluate_preconditions(
                request({{"If-None-Match", "\"other\""},
                         {"If-Modified-Since", http::format_http_date(nov_6_1994 + 100)}}),
                v),
            Precondition::proceed);
  EXPECT_EQ(evaluate_preconditions(
                request({{"If-None-Match", "\"abc\""},
                         {"If-Modified-Since", http::format_http_date(nov_6_1994 - 100)}}),
                v),
            Precondition::not_modified);
}

TEST(StaticPreconditions, IfMatchIsStrongAnd412) {
  const Validators v{tag, nov_6_1994};
  EXPECT_EQ(evaluate_preconditions(request({{"If-Match", "\"abc\""}}), v), Precondition::proceed);
  EXPECT_EQ(evaluate_preconditions(request({{"If-Match", "*"}}), v), Precondition::proceed);
  EXPECT_EQ(evaluate_preconditions(request({{"If-Match", "W/\"abc\""}}), v), Precondition::failed);
  EXPECT_EQ(evaluate_preconditions(request({{"If-Match", "\"x\""}}), v), Precondition::failed);
  EXPECT_EQ(evaluate_preconditions(request({{"If-Match", "garbage"}}), v), Precondition::failed);
}

TEST(StaticPreconditions, IfUnmodifiedSince) {
  const Validators v{tag, nov_6_1994};
  auto ius = [&](int64_t t) {
    return evaluate_preconditions(request({{"If-Unmodified-Since", http::format_http_date(t)}}), v);
  };
  EXPECT_EQ(ius(nov_6_1994), Precondition::proceed);
  EXPECT_EQ(ius(nov_6_1994 + 1), Precondition::proceed);
  EXPECT_EQ(ius(nov_6_1994 - 1), Precondition::failed);
  EXPECT_EQ(evaluate_preconditions(request({{"If-Unmodified-Since", "soon"}}), v),
            Precondition::proceed);
}

TEST(StaticPreconditions, Rfc9110Order) {
  const Validators v{tag, nov_6_1994};
  const std::string earlier = http::format_http_date(nov_6_1994 - 1);
  // Step 1 before step 2: a matching If-Match makes If-Unmodified-Since
  // ignored (even a failing one).
  EXPECT_EQ(evaluate_preconditions(
                request({{"If-Match", "\"abc\""}, {"If-Unmodified-Since", earlier}}), v),
            Precondition::proceed);
  // Step 1 before step 3: a failing If-Match is 412 even if If-None-Match
  // would be 304.
  EXPECT_EQ(
      evaluate_preconditions(request({{"If-Match", "\"x\""}, {"If-None-Match", "\"abc\""}}), v),
      Precondition::failed);
  // Step 2 before step 4.
  EXPECT_EQ(
      evaluate_preconditions(request({{"If-Unmodified-Since", earlier},
                                      {"If-Modified-Since", http::format_http_date(nov_6_1994)}}),
                             v),
      Precondition::failed);
  // Both pass: 304 from step 3.
  EXPECT_EQ(evaluate_preconditions(request({{"If-Match", "\"abc\""}, {"If-None-Match", "*"}}), v),
            Precondition::not_modified);
}

TEST(StaticIfRange, EtagStrongOrExactDate) {
  const Validators v{tag, nov_6_1994};
  EXPECT_TRUE(if_range_holds(request({}), v));
  EXPECT_TRUE(if_range_holds(request({{"If-Range", "\"abc\""}}), v));
  EXPECT_FALSE(if_range_holds(request({{"If-Range", "W/\"abc\""}}), v));  // weak never
  EXPECT_FALSE(if_range_holds(request({{"If-Range", "\"other\""}}), v));
  EXPECT_TRUE(if_range_holds(request({{"If-Range", http::format_http_date(nov_6_1994)}}), v));
  EXPECT_FALSE(if_range_holds(request({{"If-Range", http::format_http_date(nov_6_1994 + 1)}}), v));
  EXPECT_FALSE(if_range_holds(request({{"If-Range", "junk"}}), v));
}

TEST(StaticRange, SingleRanges) {
  auto single = [](std::string_view v, uint64_t len, uint64_t first, uint64_t last) {
    const RangeRequest r = evaluate_range(v, len);
    EXPECT_EQ(r.verdict, RangeVerdict::single) << v;
    EXPECT_EQ(r.first, first) << v;
    EXPECT_EQ(r.last, last) << v;
  };
  single("bytes=0-0", 100, 0, 0);
  single("bytes=0-99", 100, 0, 99);
  single("bytes=10-19", 100, 10, 19);
  single("bytes=90-", 100, 90, 99);                         // open-ended
  single("bytes=50-1000", 100, 50, 99);                     // beyond the end: clamped
  single("bytes=-10", 100, 90, 99);                         // suffix
  single("bytes=-1000", 100, 0, 99);                        // suffix longer than the file
  single("BYTES=1-2", 100, 1, 2);                           // the unit is case-insensitive
  single(" bytes=1-2 , ", 100, 1, 2);                       // OWS, empty list elements
  single("bytes=1-2, 200-300", 100, 1, 2);                  // the unsatisfiable one dropped
  single("bytes=99-99999999999999999999999", 100, 99, 99);  // saturates
}

TEST(StaticRange, Unsatisfiable) {
  for (std::string_view v : {"bytes=100-", "bytes=100-200", "bytes=-0", "bytes=200-, 300-400",
                             "bytes=99999999999999999999999-"})
    EXPECT_EQ(evaluate_range(v, 100).verdict, RangeVerdict::unsatisfiable) << v;
  EXPECT_EQ(evaluate_range("bytes=0-", 0).verdict, RangeVerdict::unsatisfiable);
  EXPECT_EQ(evaluate_range("bytes=-5", 0).verdict, RangeVerdict::unsatisfiable);
}

TEST(StaticRange, InvalidIsIgnored) {
  // RFC 9110 §14.2: a Range the server does not understand, or whose
  // syntax is invalid (last < first included, §14.1.1), is ignored.
  for (std::string_view v : {"", "bytes", "bytes=", "bytes=,", "items=0-1", "bytes 0-1",
                             "bytes=5-2", "bytes=a-b", "bytes=1", "bytes=--1", "bytes=1-2-3",
                             "bytes=0-1;x", "bytes = 0-1", "bytes=1 -2", "bytes=0-1, 5-2"})
    EXPECT_EQ(evaluate_range(v, 100).verdict, RangeVerdict::ignore) << v;
}

TEST(StaticRange, MultipleRanges) {
  for (std::string_view v : {"bytes=0-1,5-6", "bytes=0-10,5-20", "bytes=0-1,0-1", "bytes=-5,0-"})
    EXPECT_EQ(evaluate_range(v, 100).verdict, RangeVerdict::multiple) << v;
}

// A file with a gzip variant only.
static bool accepts_gzip(const http::Request& r) {
  return choose_coding(r, true, false) == Coding::gzip;
}

TEST(StaticAcceptEncoding, GzipWhenAcceptedWithQ) {
  auto gz = [](std::string value) { return accepts_gzip(request({{"Accept-Encoding", value}})); };
  EXPECT_FALSE(accepts_gzip(request({})));  // no field: identity (docs/http.md)
  EXPECT_TRUE(gz("gzip"));
  EXPECT_TRUE(gz("deflate, gzip, br"));
  EXPECT_TRUE(gz("GZIP"));
  EXPECT_TRUE(gz("x-gzip"));
  EXPECT_TRUE(gz("*"));
  EXPECT_TRUE(gz("gzip;q=0.5"));
  EXPECT_TRUE(gz("gzip ; q=1.000"));
  EXPECT_TRUE(gz("gzip;q=0.001"));
  EXPECT_FALSE(gz(""));
  EXPECT_FALSE(gz("br, deflate"));
  EXPECT_FALSE(gz("gzip;q=0"));
  EXPECT_FALSE(gz("gzip;q=0.000"));
  EXPECT_FALSE(gz("*;q=0"));
  EXPECT_FALSE(gz("gzip;q=0, *"));  // the named coding beats "*"
  EXPECT_TRUE(gz("*, gzip;q=0.1"));
  EXPECT_FALSE(gz("gzip;q=0.5, identity"));  // identity preferred
  EXPECT_TRUE(gz("gzip, identity;q=0.5"));
  EXPECT_FALSE(gz("gzip;q=2"));  // malformed weights drop the element
  EXPECT_FALSE(gz("gzip;q=0.5000"));
  EXPECT_FALSE(gz("gzip;level=9"));
  EXPECT_TRUE(accepts_gzip(request({{"Accept-Encoding", "br"}, {"Accept-Encoding", "gzip"}})));
}

// Among the variants a file has: the highest q, br when equal.
TEST(StaticAcceptEncoding, BrotliBeforeGzipAtEqualQ) {
  auto pick = [](std::string value, bool gzip = true, bool br = true) {
    return choose_coding(request({{"Accept-Encoding", value}}), gzip, br);
  };
  EXPECT_EQ(choose_coding(request({}), true, true), Coding::identity);
  EXPECT_EQ(pick("gzip, deflate, br"), Coding::br);
  EXPECT_EQ(pick("BR"), Coding::br);
  EXPECT_EQ(pick("gzip"), Coding::gzip);
  EXPECT_EQ(pick("br"), Coding::br);
  EXPECT_EQ(pick("br", true, false), Coding::identity);  // no brotli variant
  EXPECT_EQ(pick("gzip", false, true), Coding::identity);
  EXPECT_EQ(pick("gzip, br", false, true), Coding::br);
  EXPECT_EQ(pick("*"), Coding::br);
  EXPECT_EQ(pick("br;q=0.5, gzip"), Coding::gzip);
  EXPECT_EQ(pick("br;q=0.9, gzip;q=0.5"), Coding::br);
  EXPECT_EQ(pick("br;q=0, *"), Coding::gzip);
  EXPECT_EQ(pick("*;q=0.5, br;q=0.4"), Coding::gzip);  // "*" weighs gzip here
  EXPECT_EQ(pick("br;q=0.5, identity"), Coding::identity);
  EXPECT_EQ(pick("br;q=0.5, gzip;q=0.7, identity;q=0.6"), Coding::gzip);
  EXPECT_EQ(pick("br;q=2, gzip;q=0"), Coding::identity);  // malformed: dropped
}
