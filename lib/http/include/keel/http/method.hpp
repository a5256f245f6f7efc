// Request methods (RFC 9110 §9, RFC 5789 PATCH). Methods are case-sensitive
// tokens; any other token parses as Method::other (the router answers 501).
#pragma once
#include <cstdint>
#include <string_view>

namespace keel::http {

enum class Method : uint8_t {
  get,
  head,
  post,
  put,
  delete_,
  connect,
  options,
  trace,
  patch,
  other
};
constexpr std::size_t method_count = 9;  // the named ones, without other

Method method_from(std::string_view token);
std::string_view to_string(Method method);  // "GET"...; "" for other

}  // namespace keel::http
