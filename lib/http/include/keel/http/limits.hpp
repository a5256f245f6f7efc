// Bounds on what a request may make the parser hold, each with the status
// RFC 9110 gives for going past it (docs/http.md, "Limits"). The defaults
// follow nginx's (large_client_header_buffers 8k, client_max_body_size 1m).
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel::http {

struct Limits {
  // The request line without its CRLF. Past it: 414 while in the target,
  // 501 while in the method (RFC 9112 §3), else 400. Also bounds the empty
  // lines allowed before the request line (§2.2; 400 past it).
  std::size_t max_request_line = 8 * 1024;
  // All field lines of the header section (and of a chunked body's
  // trailer section), without their CRLFs. Past it: 431 (RFC 6585 §5).
  std::size_t max_header_bytes = 16 * 1024;
  // Field lines in the header section (and the trailer section). Past it: 431.
  std::size_t max_header_count = 100;
  // Content, Content-Length or the sum of the chunks. Past it: 413.
  uint64_t max_body = 1024 * 1024;
  // A chunk-size line with its extensions (RFC 9112 §7.1.1). Past it: 400.
  std::size_t max_chunk_line = 1024;
  // Whether chunked request bodies are taken; if not, they get 411 (Length
  // Required: the service wants the size before the body).
  bool chunked_bodies = true;
};

}  // namespace keel::http
