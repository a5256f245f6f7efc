// Request's lookups and the method table (RFC 9110 §9.1, §18.2; RFC 5789).
#include "keel/http/request.hpp"

#include <array>

#include "syntax/chars.hpp"

namespace keel::http {
namespace {

constexpr std::array<std::string_view, method_count> method_names = {
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"};

}  // namespace

// Methods are case-sensitive (RFC 9110 §9.1): "get" is not GET.
Method method_from(std::string_view token) {
  for (std::size_t i = 0; i < method_names.size(); ++i)
    if (method_names[i] == token) return Method(i);
  return Method::other;
}

std::string_view to_string(Method method) {
  const auto i = std::size_t(method);
  return i < method_names.size() ? method_names[i] : std::string_view();
}

const std::string* Request::field(std::string_view name) const {
  for (const Field& f : fields)
    if (syntax::iequals(f.name, name)) return &f.value;
  return nullptr;
}

std::string_view Request::host() const {
  if (!authority.empty()) return authority;
  const std::string* h = field("host");
  return h != nullptr ? std::string_view(*h) : std::string_view();
}

}  // namespace keel::http
