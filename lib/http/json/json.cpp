// JSON bodies in and out (include/keel/http/json.hpp).
#include "keel/http/json.hpp"

#include "syntax/chars.hpp"

namespace keel::http {
namespace {

constexpr std::string_view json_type = "application/json";

// media-type = type "/" subtype parameters (RFC 9110 §8.3.1); the type
// and subtype are case-insensitive, parameters (charset) are ignored.
bool is_json_media_type(std::string_view content_type) {
  const std::string_view type = syntax::trim_ows(content_type.substr(0, content_type.find(';')));
  if (syntax::iequals(type, json_type)) return true;
  constexpr std::string_view suffix = "+json";
  return type.size() > suffix.size() && type.find('/') != std::string_view::npos &&
         syntax::iequals(type.substr(type.size() - suffix.size()), suffix);
}

// The deepest nesting of arrays and objects, strings skipped; stops
// counting past `limit`.
bool nesting_within(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

}  // namespace

const char* to_string(JsonError error) {
  switch (error) {
    case JsonError::none:
      return "none";
    case JsonError::wrong_media_type:
      return "content is not application/json";
    case JsonError::too_deep:
      return "JSON nested too deep";
    case JsonError::invalid:
      return "invalid JSON";
  }
  return "unknown";
}

StatusCode status_of(JsonError error) {
  switch (error) {
    case JsonError::none:
      return status::ok;
    case JsonError::wrong_media_type:
      return status::unsupported_media_type;
    default:
      return status::bad_request;
  }
}

JsonError parse_json_body(const Request& request, std::string_view body, nlohmann::json& out,
                          std::size_t max_depth) {
  const std::string* type = request.field("content-type");
  if (type == nullptr || !is_json_media_type(*type)) return JsonError::wrong_media_type;
  if (!nesting_within(body, max_depth)) return JsonError::too_deep;
  out = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  return out.is_discarded() ? JsonError::invalid : JsonError::none;
}

JsonReply json_reply(StatusCode status, const nlohmann::json& value) {
  JsonReply reply;
  reply.body = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  reply.head.status = status;
  reply.head.set("Content-Type", json_type);
  reply.head.content_length = reply.body.size();
  return reply;
}

JsonReply json_error(StatusCode status, std::string_view message) {
  return json_reply(status, nlohmann::json{{"error", message}});
}

}  // namespace keel::http
