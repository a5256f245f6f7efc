// Names of the parser's errors and the status each is answered with.
#include "keel/http/parse_error.hpp"

namespace keel::http {

const char* to_string(ParseError error) {
  switch (error) {
    case ParseError::none:
      return "none";
    case ParseError::bare_cr:
      return "bare CR";
    case ParseError::bare_lf:
      return "bare LF";
    case ParseError::bad_request_line:
      return "malformed request line";
    case ParseError::method_too_long:
      return "method too long";
    case ParseError::target_too_long:
      return "request target too long";
    case ParseError::request_line_too_long:
      return "request line too long";
    case ParseError::bad_target:
      return "invalid request target";
    case ParseError::bad_version:
      return "malformed HTTP version";
    case ParseError::unsupported_version:
      return "unsupported HTTP version";
    case ParseError::obs_fold:
      return "obsolete line folding";
    case ParseError::bad_field_name:
      return "invalid field name";
    case ParseError::space_before_colon:
      return "whitespace before colon";
    case ParseError::missing_colon:
      return "field line without colon";
    case ParseError::bad_field_value:
      return "invalid character in field value";
    case ParseError::header_too_large:
      return "header section too large";
    case ParseError::too_many_headers:
      return "too many header fields";
    case ParseError::missing_host:
      return "missing Host";
    case ParseError::duplicate_host:
      return "more than one Host";
    case ParseError::bad_host:
      return "invalid Host";
    case ParseError::bad_content_length:
      return "invalid Content-Length";
    case ParseError::content_length_with_transfer_encoding:
      return "Content-Length with Transfer-Encoding";
    case ParseError::transfer_encoding_in_http10:
      return "Transfer-Encoding in HTTP/1.0";
    case ParseError::chunked_not_last:
      return "chunked is not the final transfer coding";
    case ParseError::bad_transfer_encoding:
      return "invalid Transfer-Encoding";
    case ParseError::unknown_transfer_coding:
      return "unknown transfer coding";
    case ParseError::chunked_not_accepted:
      return "chunked body not accepted";
    case ParseError::body_too_large:
      return "body too large";
    case ParseError::bad_chunk_size:
      return "invalid chunk size";
    case ParseError::bad_chunk_extension:
      return "invalid chunk extension";
    case ParseError::chunk_line_too_long:
      return "chunk size line too long";
    case ParseError::bad_chunk_end:
      return "chunk data not followed by CRLF";
    case ParseError::unsupported_expectation:
      return "unsupported expectation";
  }
  return "unknown";
}

StatusCode status_of(ParseError error) {
  switch (error) {
    case ParseError::none:
      return status::ok;
    case ParseError::method_too_long:
    case ParseError::unknown_transfer_coding:
      return status::not_implemented;
    case ParseError::target_too_long:
      return status::uri_too_long;
    case ParseError::unsupported_version:
      return status::http_version_not_supported;
    case ParseError::header_too_large:
    case ParseError::too_many_headers:
      return status::request_header_fields_too_large;
    case ParseError::chunked_not_accepted:
      return status::length_required;
    case ParseError::body_too_large:
      return status::content_too_large;
    case ParseError::unsupported_expectation:
      return status::expectation_failed;
    default:
      return status::bad_request;
  }
}

}  // namespace keel::http
