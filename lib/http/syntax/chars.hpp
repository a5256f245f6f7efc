// Character classes of HTTP's grammar (RFC 9110 §5.6.2 tokens, §5.5 field
// values; RFC 3986 §2 for request targets), as 256-entry tables so every
// check is one load. Internal to lib/http.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace keel::http::syntax {

constexpr char cr = '\r';
constexpr char lf = '\n';
constexpr char sp = ' ';
constexpr char htab = '\t';

namespace detail {
constexpr bool is_alnum(unsigned c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr std::array<bool, 256> make_table(std::string_view extra, bool alnum) {
  std::array<bool, 256> t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = alnum && is_alnum(c);
  for (char c : extra) t[static_cast<unsigned char>(c)] = true;
  return t;
}
// RFC 9110 §5.6.2: tchar.
inline constexpr auto token_table = make_table("!#$%&'*+-.^_`|~", true);
// RFC 3986 §3.3 pchar without pct-encoded ('%' is checked apart), plus '/'
// and '?' (path and query, §3.4).
inline constexpr auto target_table = make_table("-._~!$&'()*+,;=:@/?", true);
}  // namespace detail

inline bool is_tchar(char c) { return detail::token_table[static_cast<unsigned char>(c)]; }
inline bool is_target_char(char c) { return detail::target_table[static_cast<unsigned char>(c)]; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
// RFC 9110 §5.5: field-vchar / SP / HTAB / obs-text; every other CTL
// (NUL, CR, LF, DEL...) is invalid in a value.
inline bool is_field_value_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u == static_cast<unsigned char>(htab) || (u >= 0x20 && u != 0x7f);
}
inline bool is_ows(char c) { return c == sp || c == htab; }

inline bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_tchar(c)) return false;
  return true;
}

// ASCII case-insensitive equality (field names, codings, connection options).
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

inline std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && is_ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ows(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace keel::http::syntax
