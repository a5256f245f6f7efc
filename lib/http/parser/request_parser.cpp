// The request parser's state machine: lines are cut at CRLF (a line cut by
// the end of the input is kept in partial_, bounded by the limit of the
// part it belongs to), each complete line goes through parser/rules.hpp,
// and content is handed out as spans of the input. Split-invariance rests
// on two things: rules see only complete lines, and a partial line is
// refused for length exactly when the complete line would be.
#include "keel/http/request_parser.hpp"

#include <algorithm>

#include "parser/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http {
namespace {

constexpr std::size_t crlf_size = 2;
// Browsers send 10 to 20 fields.
constexpr std::size_t initial_field_capacity = 16;

std::string_view as_chars(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// A line's length for the limits: without the CR of a CRLF that may be
// completing (a final CR).
std::size_t counted_length(std::string_view content) {
  return content.size() - (!content.empty() && content.back() == syntax::cr ? 1 : 0);
}

}  // namespace

void RequestParser::reset() {
  request_ = Request{};
  state_ = State::request_line;
  error_ = ParseError::none;
  std::string().swap(partial_);  // a long line's buffer is not kept for the next request
  field_bytes_ = 0;
  skipped_ = 0;
  remaining_ = 0;
  body_bytes_ = 0;
  headers_reported_ = false;
}

bool RequestParser::headers_complete() const { return headers_reported_; }

std::size_t RequestParser::line_limit() const {
  switch (state_) {
    case State::request_line:
      return limits_.max_request_line;
    case State::field_line:
    case State::trailer_line:
      return limits_.max_header_bytes - std::min(field_bytes_, limits_.max_header_bytes);
    case State::chunk_size:
      return limits_.max_chunk_line;
    default:
      return 0;  // chunk_data_end: only CRLF
  }
}

ParseError RequestParser::line_length_error() const {
  switch (state_) {
    case State::request_line:
      return ParseError::none;  // judged on the line's bytes (take_line)
    case State::field_line:
    case State::trailer_line:
      return ParseError::header_too_large;
    case State::chunk_size:
      return ParseError::chunk_line_too_long;
    default:
      return ParseError::bad_chunk_end;
  }
}

ParseStep RequestParser::fail(ParseError error, std::size_t consumed) {
  error_ = error;
  state_ = State::failed;
  partial_.clear();
  return {ParseEvent::error, consumed, {}};
}

// RFC 9112 §2.2: lines end in CRLF. A bare CR MUST be refused (or replaced
// by SP); we refuse it, and a bare LF too (decision 0100).
RequestParser::LineResult RequestParser::take_line(std::span<const uint8_t> input,
                                                   std::size_t& used, std::string_view& line) {
  const std::string_view chars = as_chars(input);
  const std::size_t lf = chars.find(syntax::lf);
  const std::size_t limit = line_limit();
  auto too_long = [&](std::string_view content) {
    error_ = line_length_error();
    if (state_ == State::request_line)
      error_ = rules::long_request_line(content.substr(0, limit + 1));
    return LineResult::failed;
  };
  if (lf == std::string_view::npos) {
    used = input.size();
    partial_.append(chars);
    return counted_length(partial_) > limit ? too_long(partial_) : LineResult::partial;
  }
  used = lf + 1;
  std::string_view content = chars.substr(0, lf);
  if (!partial_.empty()) {
    partial_.append(content);
    content = partial_;
  }
  if (counted_length(content) > limit) return too_long(content);
  if (content.empty() || content.back() != syntax::cr) {
    error_ = ParseError::bare_lf;
    return LineResult::failed;
  }
  content.remove_suffix(1);
  if (content.find(syntax::cr) != std::string_view::npos) {
    error_ = ParseError::bare_cr;
    return LineResult::failed;
  }
  line = content;
  return LineResult::line;
}

ParseError RequestParser::on_field_line(std::string_view line, std::vector<Field>& into) {
  if (into.size() == limits_.max_header_count) return ParseError::too_many_headers;
  Field field;
  if (ParseError e = rules::parse_field_line(line, field); e != ParseError::none) return e;
  field_bytes_ += line.size();
  // One allocation for a typical request's fields instead of five regrowths.
  if (into.empty()) into.reserve(std::min(limits_.max_header_count, initial_field_capacity));
  into.push_back(std::move(field));
  return ParseError::none;
}

ParseError RequestParser::on_header_end() {
  if (ParseError e = rules::decide_framing(request_, limits_); e != ParseError::none) return e;
  headers_reported_ = true;
  switch (request_.framing) {
    case BodyFraming::content_length:
      remaining_ = request_.content_length;
      state_ = remaining_ > 0 ? State::content : State::done;
      break;
    case BodyFraming::chunked:
      state_ = State::chunk_size;
      break;
    case BodyFraming::none:
      state_ = State::done;
      break;
  }
  return ParseError::none;
}

ParseError RequestParser::on_chunk_size_line(std::string_view line) {
  uint64_t size = 0;
  if (ParseError e = rules::parse_chunk_size_line(line, size); e != ParseError::none) return e;
  if (size > limits_.max_body - body_bytes_) return ParseError::body_too_large;
  if (size == 0) {  // last-chunk: the trailer section follows (§7.1.2)
    field_bytes_ = 0;
    state_ = State::trailer_line;
  } else {
    remaining_ = size;
    state_ = State::chunk_data;
  }
  return ParseError::none;
}

ParseStep RequestParser::parse(std::span<const uint8_t> input) {
  std::size_t taken = 0;
  while (true) {
    switch (state_) {
      case State::failed:
        return {ParseEvent::error, 0, {}};
      case State::done:
        return {ParseEvent::message_done, taken, {}};
      case State::content:
      case State::chunk_data: {
        const std::span<const uint8_t> rest = input.subspan(taken);
        if (rest.empty()) return {ParseEvent::need_more, taken, {}};
        const auto n = std::size_t(std::min<uint64_t>(rest.size(), remaining_));
        remaining_ -= n;
        body_bytes_ += n;
        if (remaining_ == 0)
          state_ = state_ == State::content ? State::done : State::chunk_data_end;
        return {ParseEvent::body, taken + n, rest.first(n)};
      }
      default:
        break;
    }
    // A line state.
    const std::span<const uint8_t> rest = input.subspan(taken);
    if (rest.empty()) return {ParseEvent::need_more, taken, {}};
    std::size_t used = 0;
    std::string_view line;
    const LineResult result = take_line(rest, used, line);
    taken += used;
    if (result == LineResult::failed) return fail(error_, taken);
    if (result == LineResult::partial) return {ParseEvent::need_more, taken, {}};

    ParseError e = ParseError::none;
    bool headers_done = false;
    switch (state_) {
      case State::request_line:
        // §2.2: a server SHOULD ignore empty lines before the request line;
        // they count against the request line's limit, so they end.
        if (line.empty()) {
          skipped_ += crlf_size;
          if (skipped_ > limits_.max_request_line) e = ParseError::bad_request_line;
          break;
        }
        e = rules::parse_request_line(line, request_);
        state_ = State::field_line;
        break;
      case State::field_line:
        if (line.empty()) {
          e = on_header_end();
          headers_done = true;
        } else {
          e = on_field_line(line, request_.fields);
        }
        break;
      case State::chunk_size:
        e = on_chunk_size_line(line);
        break;
      case State::chunk_data_end:
        if (!line.empty()) e = ParseError::bad_chunk_end;
        state_ = State::chunk_size;
        break;
      case State::trailer_line:
        if (line.empty())
          state_ = State::done;
        else
          e = on_field_line(line, request_.trailers);
        break;
      default:
        break;
    }
    // The line was taken; it is no longer partial.
    partial_.clear();
    if (e != ParseError::none) return fail(e, taken);
    if (headers_done) return {ParseEvent::headers_done, taken, {}};
  }
}

}  // namespace keel::http
