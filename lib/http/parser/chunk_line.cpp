// The chunk-size line of a chunked body (RFC 9112 §7.1, §7.1.1):
//   chunk-size [ chunk-ext ]   chunk-size = 1*HEXDIG
//   chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
// Extensions are checked and ignored (§7.1.1: a recipient MUST ignore
// extensions it does not understand).
#include <limits>

#include "parser/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http::rules {
namespace {

using namespace syntax;

constexpr uint64_t max_before_shift = std::numeric_limits<uint64_t>::max() >> 4;

void skip_bws(std::string_view s, std::size_t& i) {
  while (i < s.size() && is_ows(s[i])) ++i;
}

bool take_token(std::string_view s, std::size_t& i) {
  const std::size_t start = i;
  while (i < s.size() && is_tchar(s[i])) ++i;
  return i > start;
}

// RFC 9110 §5.6.4: quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE.
bool take_quoted_string(std::string_view s, std::size_t& i) {
  ++i;  // the opening DQUOTE
  while (i < s.size()) {
    const char c = s[i++];
    if (c == '"') return true;
    if (c == '\\') {
      if (i == s.size() || !is_field_value_char(s[i])) return false;
      ++i;
    } else if (!is_field_value_char(c)) {
      return false;
    }
  }
  return false;
}

}  // namespace

ParseError parse_chunk_size_line(std::string_view line, uint64_t& size) {
  std::size_t i = 0;
  uint64_t value = 0;
  for (; i < line.size() && hex_value(line[i]) >= 0; ++i) {
    if (value > max_before_shift) return ParseError::bad_chunk_size;  // overflow
    value = value << 4 | uint64_t(hex_value(line[i]));
  }
  if (i == 0) return ParseError::bad_chunk_size;
  size = value;
  const std::size_t digits_end = i;
  while (i < line.size()) {
    skip_bws(line, i);
    if (i == line.size()) return ParseError::bad_chunk_extension;  // whitespace, no ';'
    if (line[i] != ';')  // "5x" is a bad size, "5;a=b c" a bad extension
      return i == digits_end ? ParseError::bad_chunk_size : ParseError::bad_chunk_extension;
    ++i;
    skip_bws(line, i);
    if (!take_token(line, i)) return ParseError::bad_chunk_extension;
    std::size_t j = i;
    skip_bws(line, j);
    if (j < line.size() && line[j] == '=') {
      i = j + 1;
      skip_bws(line, i);
      const bool ok =
          i < line.size() && line[i] == '"' ? take_quoted_string(line, i) : take_token(line, i);
      if (!ok) return ParseError::bad_chunk_extension;
    }
  }
  return ParseError::none;
}

}  // namespace keel::http::rules
