// Why the request parser refused a request, and the status to answer it
// with. Every error ends the connection after the answer: once framing is
// in doubt, nothing after it can be trusted (RFC 9112 §6.3, §11.2).
#pragma once
#include <cstdint>

#include "keel/http/status.hpp"

namespace keel::http {

enum class ParseError : uint8_t {
  none,
  // The start line (RFC 9112 §3).
  bare_cr,           // CR not followed by LF (§2.2)
  bare_lf,           // LF without CR: refused (decision 0100)
  bad_request_line,  // not method SP target SP version
  method_too_long,   // 501 (§3)
  target_too_long,   // 414 (§3)
  request_line_too_long,
  bad_target,           // not a valid request-target for its method (§3.2)
  bad_version,          // not HTTP-version's syntax (§2.3)
  unsupported_version,  // major version other than 1: 505
  // Header and trailer fields (RFC 9112 §5, RFC 9110 §5).
  obs_fold,            // line starting with SP/HTAB (§5.2)
  bad_field_name,      // empty or not a token
  space_before_colon,  // §5.1: MUST be rejected
  missing_colon,
  bad_field_value,   // a CTL other than HTAB (RFC 9110 §5.5)
  header_too_large,  // max_header_bytes: 431
  too_many_headers,  // max_header_count: 431
  // Host (RFC 9112 §3.2).
  missing_host,
  duplicate_host,
  bad_host,
  // Framing (RFC 9112 §6).
  bad_content_length,  // not 1*DIGIT, or a list of different values
  content_length_with_transfer_encoding,
  transfer_encoding_in_http10,
  chunked_not_last,         // §6.3: 400
  bad_transfer_encoding,    // not a list of transfer codings
  unknown_transfer_coding,  // a coding other than chunked: 501 (§6.1)
  chunked_not_accepted,     // Limits::chunked_bodies off: 411
  body_too_large,           // max_body: 413
  bad_chunk_size,           // not HEXDIG, or overflows (§7.1)
  bad_chunk_extension,
  chunk_line_too_long,
  bad_chunk_end,  // chunk data not followed by CRLF
  // Expect (RFC 9110 §10.1.1).
  unsupported_expectation,  // 417
};

const char* to_string(ParseError error);
StatusCode status_of(ParseError error);

}  // namespace keel::http
