// Public request-smuggling payloads, each with the parser's verdict. The
// shapes are the classic ones (Watchfire 2005; PortSwigger's "HTTP Desync
// Attacks", 2019: CL.TE, TE.CL, TE.TE obfuscations) and later parser
// differentials (chunk-size overflow, bare LF/CR in chunks). A front end and
// a back end reading one of these differently is what smuggling needs;
// RFC 9112 §6.1, §6.3 and §11.2 make each of them an error, and so does
// this parser. Every payload is parsed at every split point.
#include <gtest/gtest.h>

#include "parse_support.hpp"

namespace keel::http::test {
namespace {

struct Payload {
  const char* name;
  std::string_view fields;  // between the request line and the body
  std::string_view body;
  ParseError verdict;
};

std::string request(const Payload& p) {
  return "POST / HTTP/1.1\r\nHost: vulnerable.example\r\n" + std::string(p.fields) + "\r\n" +
         std::string(p.body);
}

constexpr std::string_view smuggled = "0\r\n\r\nGET /admin HTTP/1.1\r\nHost: x\r\n\r\n";

const Payload payloads[] = {
    // CL.TE / TE.CL: both framings present (RFC 9112 §6.1: reject or use TE
    // alone and close; we reject).
    {"CL.TE", "Content-Length: 13\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\nSMUGGLED",
     ParseError::content_length_with_transfer_encoding},
    {"TE.CL", "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", "8\r\nSMUGGLED\r\n0\r\n\r\n",
     ParseError::content_length_with_transfer_encoding},
    // TE.TE: obfuscated Transfer-Encoding one side ignores.
    {"TE xchunked", "Transfer-Encoding: xchunked\r\n", smuggled, ParseError::chunked_not_last},
    {"TE space before colon", "Transfer-Encoding : chunked\r\n", smuggled,
     ParseError::space_before_colon},
    {"TE chunked, identity", "Transfer-Encoding: chunked, identity\r\n", smuggled,
     ParseError::chunked_not_last},
    {"TE identity, chunked", "Transfer-Encoding: identity, chunked\r\n", smuggled,
     ParseError::unknown_transfer_coding},
    {"TE gzip, chunked", "Transfer-Encoding: gzip, chunked\r\n", smuggled,
     ParseError::unknown_transfer_coding},
    {"TE twice: chunked then x", "Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n", smuggled,
     ParseError::chunked_not_last},
    {"TE twice: chunked, chunked", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
     smuggled, ParseError::chunked_not_last},
    {"TE chunked;x=1", "Transfer-Encoding: chunked;x=1\r\n", smuggled,
     ParseError::bad_transfer_encoding},
    {"TE quoted", "Transfer-Encoding: \"chunked\"\r\n", smuggled,
     ParseError::bad_transfer_encoding},
    {"TE empty", "Transfer-Encoding:\r\n", smuggled, ParseError::bad_transfer_encoding},
    {"TE vertical tab",
     "Transfer-Encoding:\x0b"
     "chunked\r\n",
     smuggled, ParseError::bad_field_value},
    {"TE form feed", "Transfer-Encoding: chunked\x0c\r\n", smuggled, ParseError::bad_field_value},
    {"TE NUL", std::string_view("Transfer-Encoding: chunked\0\r\n", 29), smuggled,
     ParseError::bad_field_value},
    {"TE obs-fold", "Transfer-Encoding:\r\n chunked\r\n", smuggled, ParseError::obs_fold},
    {"TE folded after X", "X: y\r\n\tTransfer-Encoding: chunked\r\n", smuggled,
     ParseError::obs_fold},
    {"TE in name with bare CR", "X: y\rTransfer-Encoding: chunked\r\n", smuggled,
     ParseError::bare_cr},
    {"TE after bare LF", "X: y\nTransfer-Encoding: chunked\r\n", smuggled, ParseError::bare_lf},
    {"TE name with underscore-like char", "Transfer_Encoding: chunked\r\n", "", ParseError::none},
    {"TE unicode lookalike",
     "Transfer-Encoding: chunk\xc5\xbf"
     "d\r\n",
     smuggled, ParseError::bad_transfer_encoding},
    // Content-Length variants.
    {"CL +5", "Content-Length: +5\r\n", "hello", ParseError::bad_content_length},
    {"CL -1", "Content-Length: -1\r\n", "", ParseError::bad_content_length},
    {"CL hex", "Content-Length: 0x5\r\n", "hello", ParseError::bad_content_length},
    {"CL 5 5", "Content-Length: 5 5\r\n", "hello", ParseError::bad_content_length},
    {"CL 5, 6", "Content-Length: 5, 6\r\n", "hello", ParseError::bad_content_length},
    {"CL 5 then 6", "Content-Length: 5\r\nContent-Length: 6\r\n", "hello!",
     ParseError::bad_content_length},
    {"CL 5,", "Content-Length: 5,\r\n", "hello", ParseError::bad_content_length},
    {"CL empty", "Content-Length:\r\n", "", ParseError::bad_content_length},
    {"CL space before colon", "Content-Length : 5\r\n", "hello", ParseError::space_before_colon},
    {"CL 2^64 + 5", "Content-Length: 18446744073709551621\r\n", "hello",
     ParseError::body_too_large},
    // RFC 9110 §8.6: the same value repeated MAY be taken as that value.
    {"CL 5, 5", "Content-Length: 5, 5\r\n", "hello", ParseError::none},
    {"CL 5 and 5", "Content-Length: 5\r\nContent-Length: 05\r\n", "hello", ParseError::none},
    // Allowed: HTAB is whitespace around a value (RFC 9110 §5.5).
    {"TE HTAB", "Transfer-Encoding:\tchunked\r\n", "0\r\n\r\n", ParseError::none},
    {"TE CHUNKED", "Transfer-Encoding: CHUNKED\r\n", "0\r\n\r\n", ParseError::none},
    {"TE empty elements", "Transfer-Encoding: , chunked\r\n", "0\r\n\r\n", ParseError::none},
    // Chunk parser differentials.
    {"chunk size overflow", "Transfer-Encoding: chunked\r\n", "10000000000000000\r\n\r\n0\r\n\r\n",
     ParseError::bad_chunk_size},
    {"chunk size with 0x", "Transfer-Encoding: chunked\r\n", "0x0\r\n\r\n",
     ParseError::bad_chunk_size},
    {"chunk data LF only", "Transfer-Encoding: chunked\r\n", "2\r\nab\n0\r\n\r\n",
     ParseError::bare_lf},
    {"chunk data longer than size", "Transfer-Encoding: chunked\r\n", "2\r\nabc\r\n0\r\n\r\n",
     ParseError::bad_chunk_end},
    {"chunk ext with bare CR", "Transfer-Encoding: chunked\r\n", "2;\rx\r\nab\r\n0\r\n\r\n",
     ParseError::bare_cr},
    {"chunk ext with LF", "Transfer-Encoding: chunked\r\n", "2;a\nab\r\n0\r\n\r\n",
     ParseError::bare_lf},
};

TEST(Smuggling, Payloads) {
  for (const Payload& p : payloads) {
    SCOPED_TRACE(p.name);
    EXPECT_EQ(verdict(request(p)), p.verdict) << to_string(verdict(request(p)));
  }
}

TEST(Smuggling, StatusOfEachRefusal) {
  EXPECT_EQ(status_of(ParseError::content_length_with_transfer_encoding), 400);
  EXPECT_EQ(status_of(ParseError::chunked_not_last), 400);
  EXPECT_EQ(status_of(ParseError::bad_content_length), 400);
  EXPECT_EQ(status_of(ParseError::bad_chunk_size), 400);
  // RFC 9112 §6.1: a transfer coding the server does not understand: 501.
  EXPECT_EQ(status_of(ParseError::unknown_transfer_coding), 501);
}

TEST(Smuggling, AcceptedPayloadsFrameAsExpected) {
  // "Content-Length: 5, 5" is 5 bytes: the next request starts after them.
  const std::string head = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n";
  const Outcome o = parse_everywhere(head + "helloGET / HTTP/1.1\r\n");
  EXPECT_EQ(o.body, "hello");
  EXPECT_EQ(o.consumed, head.size() + 5);
  const Outcome t = parse_everywhere(
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\tchunked\r\n\r\n" + std::string(smuggled));
  EXPECT_EQ(t.body, "");
  EXPECT_EQ(t.events, "HD");  // the smuggled GET is the next request, seen as such
}

TEST(Smuggling, TransferEncodingInHttp10) {
  // RFC 9112 §6.1: faulty framing; refused.
  EXPECT_EQ(verdict("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            ParseError::transfer_encoding_in_http10);
}

}  // namespace
}  // namespace keel::http::test
