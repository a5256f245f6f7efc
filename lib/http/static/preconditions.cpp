// Conditional requests (RFC 9110 §13): entity-tag lists, the order in which
// the preconditions are evaluated (§13.2.2), and If-Range (§13.1.5).
#include "static/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http::static_detail {
namespace {

// RFC 9110 §8.8.3: etagc = %x21 / %x23-7E / obs-text.
bool is_etagc(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u == 0x21 || (u >= 0x23 && u != 0x7f);
}

// One entity-tag at the front of `s`: its opaque-tag (with quotes) and
// whether it is weak. False if `s` does not start with one.
bool take_etag(std::string_view& s, std::string_view& opaque, bool& weak) {
  weak = s.starts_with("W/");
  if (weak) s.remove_prefix(2);
  if (s.empty() || s.front() != '"') return false;
  std::size_t end = 1;
  while (end < s.size() && is_etagc(s[end])) ++end;
  if (end == s.size() || s[end] != '"') return false;
  opaque = s.substr(0, end + 1);
  s.remove_prefix(end + 1);
  return true;
}

}  // namespace

std::optional<std::string> combined_field(const Request& request, std::string_view name) {
  std::optional<std::string> all;
  for (const Field& f : request.fields) {
    if (!syntax::iequals(f.name, name)) continue;
    if (!all)
      all.emplace(f.value);
    else
      *all += ", " + f.value;
  }
  return all;
}

std::optional<bool> etag_list_matches(std::string_view list, std::string_view etag,
                                      TagMatch comparison) {
  list = syntax::trim_ows(list);
  if (list == "*") return true;  // any current representation: ours exists
  bool any = false;
  bool matched = false;
  while (true) {
    list = syntax::trim_ows(list);
    if (list.empty()) break;
    if (list.front() == ',') {  // empty list elements are allowed (§5.6.1)
      list.remove_prefix(1);
      continue;
    }
    std::string_view opaque;
    bool weak = false;
    if (!take_etag(list, opaque, weak)) return std::nullopt;
    any = true;
    // §8.8.3.2: a strong comparison needs both strong; ours always are.
    if (opaque == etag && (comparison == TagMatch::weak || !weak)) matched = true;
    list = syntax::trim_ows(list);
    if (!list.empty() && list.front() != ',') return std::nullopt;
  }
  if (!any) return std::nullopt;
  return matched;
}

// RFC 9110 §13.2.2, steps 1-4 (step 5, Range, is the caller's).
Precondition evaluate_preconditions(const Request& request, const Validators& v) {
  // 1. If-Match: a strong comparison (§13.1.1); false is 412. A malformed
  // list matches nothing: the client's condition cannot hold.
  if (auto if_match = combined_field(request, "If-Match")) {
    if (!etag_list_matches(*if_match, v.etag, TagMatch::strong).value_or(false))
      return Precondition::failed;
  } else if (const std::string* since = request.field("If-Unmodified-Since")) {
    // 2. If-Unmodified-Since, only without If-Match; an invalid date is
    // ignored (§13.1.4).
    if (auto date = parse_http_date(*since); date && v.modified > *date)
      return Precondition::failed;
  }
  // 3. If-None-Match: a weak comparison (§13.1.2); a match is 304 for GET
  // and HEAD. A malformed list is ignored.
  if (auto if_none = combined_field(request, "If-None-Match")) {
    if (etag_list_matches(*if_none, v.etag, TagMatch::weak).value_or(false))
      return Precondition::not_modified;
  } else if (const std::string* since = request.field("If-Modified-Since")) {
    // 4. If-Modified-Since, only without If-None-Match and for GET or HEAD
    // (the only methods static files answer); an invalid date is ignored
    // (§13.1.3).
    if (auto date = parse_http_date(*since); date && v.modified <= *date)
      return Precondition::not_modified;
  }
  return Precondition::proceed;
}

bool if_range_holds(const Request& request, const Validators& v) {
  const std::string* value = request.field("If-Range");
  if (value == nullptr) return true;
  std::string_view s = syntax::trim_ows(*value);
  // An entity-tag: a strong match (a weak tag never matches, §13.1.5).
  if (!s.empty() && (s.front() == '"' || s.starts_with("W/"))) {
    std::string_view opaque;
    bool weak = false;
    if (!take_etag(s, opaque, weak) || !syntax::trim_ows(s).empty()) return false;
    return !weak && opaque == v.etag;
  }
  // An HTTP-date: an exact match of Last-Modified. Anything else (an
  // invalid value) makes the condition false: the whole representation.
  auto date = parse_http_date(s);
  return date && *date == v.modified;
}

}  // namespace keel::http::static_detail
