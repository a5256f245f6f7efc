// JSON for REST handlers, with nlohmann::json (the JSON library the tree
// already uses: src/net/config_json.cpp; Debian's nlohmann-json3-dev,
// header-only). Parsing never throws and is bounded in depth; replies are
// complete responses with Content-Type and Content-Length.
//
//   nlohmann::json item;
//   if (auto e = http::parse_json_body(request, body, item); e != http::JsonError::none)
//     return http::json_error(http::status_of(e), http::to_string(e));
//   return http::json_reply(http::status::created, {{"id", 7}, {"name", item["name"]}});
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "keel/http/request.hpp"
#include "keel/http/response.hpp"

namespace keel::http {

enum class JsonError : uint8_t {
  none,
  wrong_media_type,  // Content-Type is not application/json or */*+json: 415
  too_deep,          // nested deeper than max_depth: 400
  invalid,           // not JSON (RFC 8259): 400
};
const char* to_string(JsonError error);
StatusCode status_of(JsonError error);

// Nesting a request may use: nlohmann's parser keeps its own stack, but
// every level costs memory and later recursive walks (dump) use the stack.
constexpr std::size_t default_json_depth = 64;

// Checks the request's Content-Type (RFC 8259 §11, RFC 6839 §3.1) and the
// nesting, then parses `body` into `out`.
JsonError parse_json_body(const Request& request, std::string_view body, nlohmann::json& out,
                          std::size_t max_depth = default_json_depth);

// A response ready for ResponseWriter: write_head(head), write_body(body).
struct JsonReply {
  Response head;
  std::string body;
};
// Invalid UTF-8 in strings is replaced (U+FFFD), never an exception.
JsonReply json_reply(StatusCode status, const nlohmann::json& value);
// {"error": message}, the shape every error reply of a REST API shares.
JsonReply json_error(StatusCode status, std::string_view message);

}  // namespace keel::http
