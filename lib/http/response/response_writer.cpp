// The response writer: framing chosen once, at the head, from the request
// and the status (RFC 9112 §6.1-§6.3, RFC 9110 §6.4.1, §8.6, §9.3.2).
#include "keel/http/response_writer.hpp"

#include <algorithm>
#include <string>

#include "response/chunked.hpp"
#include "syntax/chars.hpp"

namespace keel::http {
namespace {

using syntax::iequals;

constexpr std::string_view crlf = "\r\n";

bool framing_field(std::string_view name) {
  return iequals(name, "content-length") || iequals(name, "transfer-encoding") ||
         iequals(name, "connection");
}

// A handler's field must be a field: a token name and a value without CR,
// LF or other CTLs (else it could inject fields or a second response).
bool valid_field(const Field& f) {
  if (!syntax::is_token(f.name)) return false;
  for (char c : f.value)
    if (!syntax::is_field_value_char(c)) return false;
  return true;
}

void status_line(std::string& head, StatusCode status) {
  // RFC 9112 §4: HTTP-version SP status-code SP [ reason-phrase ]. The
  // version is ours, 1.1, also to an HTTP/1.0 request (RFC 9110 §6.2: the
  // highest minor version the server conforms to; nginx does the same);
  // what the response may use (chunked, 1xx) still follows the request's.
  head += "HTTP/1.1 ";
  head += std::to_string(status);
  head += ' ';
  head += reason_phrase(status);
  head += crlf;
}

void field(std::string& head, std::string_view name, std::string_view value) {
  head += name;
  head += ": ";
  head += value;
  head += crlf;
}

}  // namespace

const char* to_string(WriteStatus status) {
  switch (status) {
    case WriteStatus::ok:
      return "ok";
    case WriteStatus::would_block:
      return "would block";
    case WriteStatus::too_large:
      return "too large";
    case WriteStatus::invalid:
      return "invalid";
  }
  return "unknown";
}

ResponseWriter::ResponseWriter(OutputBuffer& out, const Request& request,
                               const WriterOptions& options)
    : out_(out),
      options_(options),
      head_request_(request.method == Method::head),
      version_minor_(request.version_minor),
      keep_alive_(request.keep_alive) {}

WriteStatus ResponseWriter::fail() {
  state_ = State::failed;
  keep_alive_ = false;
  return WriteStatus::invalid;
}

WriteStatus ResponseWriter::write_interim(StatusCode status) {
  // RFC 9110 §15.2: HTTP/1.0 clients do not understand 1xx.
  if (state_ != State::head || status < 100 || status >= 200 || version_minor_ == 0)
    return WriteStatus::invalid;
  std::string head;
  status_line(head, status);
  head += crlf;
  if (head.size() > out_.capacity()) return WriteStatus::too_large;
  return out_.append(head) ? WriteStatus::ok : WriteStatus::would_block;
}

WriteStatus ResponseWriter::write_head(const Response& r, int64_t now) {
  if (state_ != State::head || r.status < 200 || r.status > 999) return WriteStatus::invalid;
  bool has_date = false;
  bool has_server = false;
  for (const Field& f : r.fields) {
    if (!valid_field(f) || framing_field(f.name)) return WriteStatus::invalid;
    has_date = has_date || iequals(f.name, "date");
    has_server = has_server || iequals(f.name, "server");
  }

  // RFC 9110 §6.4.1: 204 and 304 never have content; HEAD's response
  // describes the GET's without it.
  const bool no_content = status_has_no_content(r.status) || head_request_;
  Framing framing;
  std::string length_field;
  if (r.status == status::no_content) {
    framing = Framing::none;  // §8.6: MUST NOT send Content-Length with 204
  } else if (r.content_length) {
    framing = no_content ? Framing::none : Framing::length;
    length_field = std::to_string(*r.content_length);  // HEAD, 304: the GET's length
  } else if (r.status == status::not_modified) {
    framing = Framing::none;
  } else if (version_minor_ >= 1) {
    framing = no_content ? Framing::none : Framing::chunked;
  } else {
    // RFC 9112 §6.3 (8): HTTP/1.0 has no chunked; the close ends the content.
    framing = no_content ? Framing::none : Framing::until_close;
  }
  bool keep_alive = keep_alive_ && !r.close && framing != Framing::until_close;

  std::string head;
  status_line(head, r.status);
  // RFC 9110 §6.6.1: an origin server with a clock MUST send Date (2xx-4xx).
  if (!has_date) field(head, "Date", format_http_date(now));
  if (!has_server && !options_.server.empty()) field(head, "Server", options_.server);
  for (const Field& f : r.fields) field(head, f.name, f.value);
  if (!length_field.empty()) field(head, "Content-Length", length_field);
  // RFC 9112 §6.1: HEAD may say how GET would be framed.
  if (framing == Framing::chunked || (head_request_ && !r.content_length && version_minor_ >= 1 &&
                                      !status_has_no_content(r.status)))
    field(head, "Transfer-Encoding", "chunked");
  // RFC 9112 §9.3, §9.6: say "close" when closing, and "keep-alive" where
  // HTTP/1.0 would otherwise close.
  if (!keep_alive)
    field(head, "Connection", "close");
  else if (version_minor_ == 0)
    field(head, "Connection", "keep-alive");
  head += crlf;

  if (head.size() > out_.capacity()) return WriteStatus::too_large;
  if (!out_.append(head)) return WriteStatus::would_block;
  keep_alive_ = keep_alive;
  framing_ = framing;
  remaining_ = framing == Framing::length ? *r.content_length : 0;
  no_content_ = no_content;
  state_ = State::body;
  return WriteStatus::ok;
}

WriteStatus ResponseWriter::write_body(std::span<const uint8_t>& data) {
  if (state_ != State::body) return WriteStatus::invalid;
  if (no_content_) {
    data = data.subspan(data.size());  // HEAD, 1xx, 204, 304: dropped
    return WriteStatus::ok;
  }
  while (!data.empty()) {
    std::size_t n = 0;
    switch (framing_) {
      case Framing::length:
        if (data.size() > remaining_) return fail();  // past Content-Length
        n = std::min(data.size(), out_.room());
        if (n > 0) out_.append(data.first(n));
        remaining_ -= n;
        break;
      case Framing::until_close:
        n = std::min(data.size(), out_.room());
        if (n > 0) out_.append(data.first(n));
        break;
      case Framing::chunked:
        // One chunk of what fits with its framing; never a zero-size chunk
        // (that is the end).
        n = std::min(data.size(), chunked::largest_fitting(out_.room()));
        if (n > 0) {
          out_.append(chunked::header(n));
          out_.append(data.first(n));
          out_.append(crlf);
        }
        break;
      case Framing::none:
        return fail();
    }
    if (n == 0) return WriteStatus::would_block;
    data = data.subspan(n);
  }
  return WriteStatus::ok;
}

WriteStatus ResponseWriter::write_body(std::string_view& text) {
  std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  const WriteStatus s = write_body(data);
  text.remove_prefix(text.size() - data.size());
  return s;
}

WriteStatus ResponseWriter::write_body_direct(uint64_t count, bool& send) {
  send = false;
  if (state_ != State::body) return WriteStatus::invalid;
  if (no_content_) return WriteStatus::ok;  // HEAD, 1xx, 204, 304: dropped
  if (framing_ == Framing::length) {
    if (count > remaining_) return fail();  // past Content-Length
    remaining_ -= count;
  } else if (framing_ != Framing::until_close) {
    return fail();
  }
  send = count > 0;
  return WriteStatus::ok;
}

WriteStatus ResponseWriter::finish(const std::vector<Field>& trailers) {
  if (state_ != State::body) return WriteStatus::invalid;
  if (framing_ == Framing::length && remaining_ > 0) return fail();  // short content: close
  if (framing_ == Framing::chunked) {
    // RFC 9112 §7.1: last-chunk, trailer-section, CRLF.
    std::string end = "0\r\n";
    for (const Field& f : trailers) {
      if (!valid_field(f) || framing_field(f.name)) return fail();
      field(end, f.name, f.value);
    }
    end += crlf;
    if (end.size() > out_.capacity()) return WriteStatus::too_large;
    if (!out_.append(end)) return WriteStatus::would_block;
  }
  if (framing_ == Framing::until_close) keep_alive_ = false;
  state_ = State::finished;
  return WriteStatus::ok;
}

}  // namespace keel::http
