// Writes one response into a bounded OutputBuffer: the status line and
// fields (Date and Server once each), then the content framed as the
// request and the status allow (RFC 9112 §6: Content-Length, chunked, or
// until the connection closes), then the end. Nothing is buffered past the
// OutputBuffer: a call that finds no room says would_block and takes
// nothing (the head, the end) or as much as fits (content), so a server on
// net::TcpStream drains out.pending() into the stream and calls again when
// the stream has drained.
//
//   http::OutputBuffer out(16 * 1024);
//   http::ResponseWriter w(out, parser.request());
//   http::Response r;
//   r.set("Content-Type", "text/plain");
//   r.content_length = body.size();
//   w.write_head(r, now_unix_seconds);   // would_block: drain out, retry
//   std::span<const uint8_t> rest = body;
//   while (w.write_body(rest) == http::WriteStatus::would_block) { drain out; }
//   w.finish();
//   if (!w.keep_alive()) { close once out is sent; }
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "keel/http/output_buffer.hpp"
#include "keel/http/request.hpp"
#include "keel/http/response.hpp"

namespace keel::http {

enum class WriteStatus : uint8_t {
  ok,           // all of it was written
  would_block,  // not (all) written: no room in the OutputBuffer
  too_large,    // the head does not fit in the OutputBuffer even empty
  invalid,      // a call out of order, a framing or invalid field, content
                // past Content-Length or where none may be, an end short of it
};
const char* to_string(WriteStatus status);

struct WriterOptions {
  std::string_view server = "Keel";  // the Server field's value ("" for none)
};

class ResponseWriter {
 public:
  // For the response to `request`: its method (HEAD), version and
  // persistence decide the framing.
  ResponseWriter(OutputBuffer& out, const Request& request, const WriterOptions& options = {});

  // A 1xx interim response (100 Continue before reading the content, RFC
  // 9110 §15.2), before write_head. All or nothing.
  WriteStatus write_interim(StatusCode status);
  // The status line and fields; `now` (seconds since 1970) is the Date.
  // All or nothing.
  WriteStatus write_head(const Response& response, int64_t now);
  // Content: takes from the front of `data` what fits and advances it.
  // ok when all is taken, would_block when room ran out first. For HEAD,
  // 1xx, 204 and 304 the content is taken and dropped (RFC 9110 §9.3.2).
  WriteStatus write_body(std::span<const uint8_t>& data);
  WriteStatus write_body(std::string_view& text);
  // Content the caller sends itself, after out's pending bytes (zero-copy
  // of data that outlives the response, e.g. an embedded file): accounts
  // for `count` bytes of a Content-Length (or HTTP/1.0's until-close)
  // response. `send` says whether to send them (false for HEAD and 304,
  // which have none). Chunked framing would need the chunk lines: invalid.
  WriteStatus write_body_direct(uint64_t count, bool& send);
  // The end: chunked's last chunk and trailer section (all or nothing);
  // invalid (and the connection must close) if Content-Length was not met.
  WriteStatus finish(const std::vector<Field>& trailers = {});

  bool head_written() const { return state_ != State::head; }
  // After write_head: whether content goes out at all (not for HEAD, 1xx,
  // 204 and 304, whose content write_body drops).
  bool sends_content() const { return !no_content_; }
  bool finished() const { return state_ == State::finished; }
  // Whether the connection may carry another request after this response.
  bool keep_alive() const { return keep_alive_; }

 private:
  enum class State : uint8_t { head, body, finished, failed };
  enum class Framing : uint8_t { none, length, chunked, until_close };

  WriteStatus fail();

  OutputBuffer& out_;
  WriterOptions options_;
  bool head_request_;
  uint8_t version_minor_;
  bool keep_alive_;
  State state_ = State::head;
  Framing framing_ = Framing::none;
  uint64_t remaining_ = 0;  // Framing::length
  bool no_content_ = false;
};

// RFC 9110 §5.6.7: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT").
std::string format_http_date(int64_t unix_seconds);

}  // namespace keel::http
