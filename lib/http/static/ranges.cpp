// Range requests (RFC 9110 §14.1-14.2): the bytes unit, int-range and
// suffix-range, which of them are satisfiable.
#include <limits>

#include "static/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http::static_detail {
namespace {

constexpr uint64_t saturated = std::numeric_limits<uint64_t>::max();

// 1*DIGIT at the front of `s`; past 64 bits saturates (it only has to
// compare as larger than any length). False without a digit.
bool take_number(std::string_view& s, uint64_t& value) {
  std::size_t n = 0;
  value = 0;
  while (n < s.size() && syntax::is_digit(s[n])) {
    const uint64_t digit = uint64_t(s[n] - '0');
    value = value > (saturated - digit) / 10 ? saturated : value * 10 + digit;
    ++n;
  }
  s.remove_prefix(n);
  return n > 0;
}

}  // namespace

RangeRequest evaluate_range(std::string_view value, uint64_t length) {
  RangeRequest r;
  value = syntax::trim_ows(value);
  // ranges-specifier = range-unit "=" range-set; the unit is
  // case-insensitive (§14.1). Another unit: ignored (§14.2).
  constexpr std::string_view unit = "bytes=";
  if (value.size() < unit.size() || !syntax::iequals(value.substr(0, unit.size()), unit)) return r;
  value.remove_prefix(unit.size());

  std::size_t specs = 0;
  std::size_t satisfiable = 0;
  uint64_t first = 0;
  uint64_t last = 0;
  while (true) {
    value = syntax::trim_ows(value);
    if (value.empty()) break;
    if (value.front() == ',') {  // empty list elements (§5.6.1)
      value.remove_prefix(1);
      continue;
    }
    uint64_t a = 0;
    uint64_t b = 0;
    bool sat = false;
    if (value.front() == '-') {
      // suffix-range: the last b bytes; satisfiable if b > 0 (§14.1.1).
      value.remove_prefix(1);
      if (!take_number(value, b)) return r;
      sat = b > 0 && length > 0;
      if (sat) {
        a = b >= length ? 0 : length - b;
        b = length - 1;
      }
    } else {
      // int-range: first-pos "-" [ last-pos ]; last-pos < first-pos makes
      // the whole field invalid (§14.1.1), so it is ignored.
      if (!take_number(value, a) || value.empty() || value.front() != '-') return r;
      value.remove_prefix(1);
      bool has_last = take_number(value, b);
      if (has_last && b < a) return r;
      sat = a < length;
      if (sat && (!has_last || b >= length)) b = length - 1;
    }
    value = syntax::trim_ows(value);
    if (!value.empty() && value.front() != ',') return r;  // not a range-spec
    ++specs;
    if (sat) {
      if (++satisfiable == 1) {
        first = a;
        last = b;
      }
    }
  }
  if (specs == 0) return r;  // "bytes=" with no range: invalid, ignored
  if (satisfiable == 0) {
    r.verdict = RangeVerdict::unsatisfiable;
  } else if (satisfiable == 1) {
    r.verdict = RangeVerdict::single;
    r.first = first;
    r.last = last;
  } else {
    r.verdict = RangeVerdict::multiple;
  }
  return r;
}

}  // namespace keel::http::static_detail
