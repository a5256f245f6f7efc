// One field line of a header or trailer section (RFC 9112 §5, RFC 9110 §5).
#include "parser/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http::rules {

using namespace syntax;

ParseError parse_field_line(std::string_view line, Field& out) {
  // RFC 9112 §5.2: obs-fold (a line starting with whitespace continues the
  // previous value) MUST be rejected with 400 or replaced; §2.2: so must
  // whitespace between the start line and the first field. We reject both.
  if (is_ows(line.front())) return ParseError::obs_fold;
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return ParseError::missing_colon;
  const std::string_view name = line.substr(0, colon);
  if (name.empty()) return ParseError::bad_field_name;
  // RFC 9112 §5.1: no whitespace between the name and the colon; a server
  // MUST reject such a request with 400 (it was a smuggling vector).
  if (is_ows(name.back())) return ParseError::space_before_colon;
  if (!is_token(name)) return ParseError::bad_field_name;
  const std::string_view value = trim_ows(line.substr(colon + 1));
  // RFC 9110 §5.5: CR, LF and NUL MUST be rejected; other CTLs are not
  // field-vchar either.
  for (char c : value)
    if (!is_field_value_char(c)) return ParseError::bad_field_value;
  out.name.assign(name);
  out.value.assign(value);
  return ParseError::none;
}

}  // namespace keel::http::rules
