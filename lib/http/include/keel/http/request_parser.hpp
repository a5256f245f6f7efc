// An incremental HTTP/1.1 request parser (RFC 9112, RFC 9110). Bytes are fed
// as they arrive, in pieces of any size; any split of the same bytes gives
// the same events, the same request and the same verdict (tested over every
// split point). The parser stops at the end of one request and leaves what
// follows (a pipelined request) to the caller, who reset()s it for the next.
//
//   http::RequestParser parser;
//   std::span<const uint8_t> in = received;
//   for (;;) {
//     http::ParseStep step = parser.parse(in);
//     in = in.subspan(step.consumed);
//     if (step.event == http::ParseEvent::need_more) break;  // all taken
//     if (step.event == http::ParseEvent::headers_done) { ... parser.request() ... }
//     if (step.event == http::ParseEvent::body) { ... step.body ... }
//     if (step.event == http::ParseEvent::message_done) { answer; parser.reset(); }
//     if (step.event == http::ParseEvent::error) { answer status_of(parser.error()); close; }
//   }
//
// Nothing it is fed is buffered beyond the limits: a partial line is copied
// (bounded by max_request_line, max_header_bytes or max_chunk_line), body
// pieces are spans into the caller's input.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "keel/http/limits.hpp"
#include "keel/http/parse_error.hpp"
#include "keel/http/request.hpp"

namespace keel::http {

enum class ParseEvent : uint8_t {
  need_more,     // every byte given was taken; feed more
  headers_done,  // request() holds the start line and header fields
  body,          // `body` is the next piece of content
  message_done,  // the request is complete (trailers included)
  error,         // error() says why; the parser takes nothing more
};

struct ParseStep {
  ParseEvent event = ParseEvent::need_more;
  std::size_t consumed = 0;       // bytes of the input taken by this step
  std::span<const uint8_t> body;  // ParseEvent::body: part of the input
};

class RequestParser {
 public:
  explicit RequestParser(const Limits& limits = {}) : limits_(limits) {}

  // Takes bytes from the front of `input` up to the next event. After
  // message_done or error it returns that event again, taking nothing,
  // until reset().
  ParseStep parse(std::span<const uint8_t> input);
  ParseStep parse(std::string_view input) {
    return parse(std::span(reinterpret_cast<const uint8_t*>(input.data()), input.size()));
  }

  // Ready for the next request on the connection (keeps the limits).
  void reset();

  const Request& request() const { return request_; }
  Request& request() { return request_; }
  ParseError error() const { return error_; }
  // Whether the start line and header section are complete.
  bool headers_complete() const;

 private:
  enum class State : uint8_t {
    request_line,
    field_line,
    content,
    chunk_size,
    chunk_data,
    chunk_data_end,
    trailer_line,
    done,
    failed,
  };
  enum class LineResult : uint8_t { line, partial, failed };

  LineResult take_line(std::span<const uint8_t> input, std::size_t& used, std::string_view& line);
  bool partial_too_long() const;
  ParseError line_length_error() const;
  std::size_t line_limit() const;
  ParseStep fail(ParseError error, std::size_t consumed);
  ParseError on_request_line(std::string_view line);
  ParseError on_field_line(std::string_view line, std::vector<Field>& into);
  ParseError on_header_end();
  ParseError on_chunk_size_line(std::string_view line);

  Limits limits_;
  Request request_;
  State state_ = State::request_line;
  ParseError error_ = ParseError::none;
  std::string partial_;          // a line cut by the end of the input so far
  std::size_t field_bytes_ = 0;  // of the current header or trailer section
  std::size_t skipped_ = 0;      // bytes of empty lines before the request line
  uint64_t remaining_ = 0;       // of Content-Length, or of the current chunk
  uint64_t body_bytes_ = 0;      // content so far (max_body)
  bool headers_reported_ = false;
};

}  // namespace keel::http
