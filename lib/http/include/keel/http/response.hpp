// A response's head as a handler describes it: status, its own fields and
// what the writer needs to frame the content (RFC 9110 §6, §15; RFC 9112 §6).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/http/request.hpp"
#include "keel/http/status.hpp"

namespace keel::http {

struct Response {
  StatusCode status = status::ok;
  // The handler's fields. Framing fields (Content-Length, Transfer-Encoding,
  // Connection) are the writer's: setting one makes write_head invalid.
  // Date and Server are added by the writer unless set here.
  std::vector<Field> fields;
  // The content's length if known (Content-Length); else the content is
  // chunked (HTTP/1.1) or ends with the connection (HTTP/1.0).
  std::optional<uint64_t> content_length;
  // Close the connection after this response whatever the request asked.
  bool close = false;

  Response& set(std::string_view name, std::string_view value) {
    fields.push_back({std::string(name), std::string(value)});
    return *this;
  }
};

}  // namespace keel::http
