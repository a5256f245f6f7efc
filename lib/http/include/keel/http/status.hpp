// Status codes (RFC 9110 §15) the library produces, and reason phrases.
#pragma once
#include <cstdint>
#include <string_view>

namespace keel::http {

using StatusCode = uint16_t;

namespace status {
constexpr StatusCode continue_ = 100;
constexpr StatusCode switching_protocols = 101;
constexpr StatusCode ok = 200;
constexpr StatusCode created = 201;
constexpr StatusCode no_content = 204;
constexpr StatusCode partial_content = 206;
constexpr StatusCode moved_permanently = 301;
constexpr StatusCode not_modified = 304;
constexpr StatusCode bad_request = 400;
constexpr StatusCode not_found = 404;
constexpr StatusCode method_not_allowed = 405;
constexpr StatusCode request_timeout = 408;
constexpr StatusCode length_required = 411;
constexpr StatusCode precondition_failed = 412;
constexpr StatusCode content_too_large = 413;
constexpr StatusCode uri_too_long = 414;
constexpr StatusCode unsupported_media_type = 415;
constexpr StatusCode range_not_satisfiable = 416;
constexpr StatusCode expectation_failed = 417;
constexpr StatusCode request_header_fields_too_large = 431;
constexpr StatusCode internal_server_error = 500;
constexpr StatusCode not_implemented = 501;
constexpr StatusCode http_version_not_supported = 505;
}  // namespace status

// The RFC's reason phrase ("Not Found"), or "" for a code it does not name.
std::string_view reason_phrase(StatusCode code);

// RFC 9110 §6.4.1 and RFC 9112 §6.3: responses that never have content
// whatever their header fields say (HEAD is the request's business).
inline bool status_has_no_content(StatusCode code) {
  return (code >= 100 && code < 200) || code == status::no_content || code == status::not_modified;
}

}  // namespace keel::http
