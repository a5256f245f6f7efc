// A parsed request: its start line split into the parts a server needs, its
// header fields as received, and what the parser worked out of them
// (framing, persistence, Expect). The body is not here: the parser hands it
// out in pieces as it arrives (request_parser.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "keel/http/method.hpp"

namespace keel::http {

// RFC 9112 §3.2.
enum class TargetForm : uint8_t {
  origin,     // /path?query
  absolute,   // http://host/path?query (§3.2.2)
  authority,  // host:port, CONNECT only (§3.2.3)
  asterisk,   // *, OPTIONS only (§3.2.4)
};

enum class BodyFraming : uint8_t { none, content_length, chunked };

struct Field {
  std::string name;   // as received (compare with syntax's iequals)
  std::string value;  // without leading and trailing whitespace
};

struct Request {
  Method method = Method::other;
  std::string method_text;  // the token as received (Method::other's name)
  std::string target;       // the request-target as received
  TargetForm form = TargetForm::origin;
  std::string authority;      // absolute-form's or authority-form's, else ""
  std::string path;           // origin and absolute forms: "/" at least; raw (not decoded)
  std::string query;          // after '?', without it; "" if none
  uint8_t version_minor = 1;  // HTTP/1.x; above 1 counts as 1 (RFC 9110 §2.5)

  std::vector<Field> fields;
  std::vector<Field> trailers;  // chunked bodies' trailer section (RFC 9112 §7.1.2)

  BodyFraming framing = BodyFraming::none;
  uint64_t content_length = 0;   // BodyFraming::content_length only
  bool keep_alive = true;        // RFC 9112 §9.3
  bool expect_continue = false;  // Expect: 100-continue in HTTP/1.1 (RFC 9110 §10.1.1)

  // The first field of that name (case-insensitive), or nullptr.
  const std::string* field(std::string_view name) const;
  // The host the request is for: the target's authority if it has one,
  // else the Host field (RFC 9112 §3.3).
  std::string_view host() const;
};

}  // namespace keel::http
