// The request fields static files answer to, parsed: HTTP-dates, entity-tag
// lists and the preconditions (RFC 9110 §13), byte ranges (§14), and
// Accept-Encoding (§12.5.3). Internal to lib/http; unit-tested one by one
// (test/http/static_rules_test.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "keel/http/request.hpp"

namespace keel::http::static_detail {

// RFC 9110 §5.6.7: IMF-fixdate and the two obsolete forms a recipient MUST
// accept (rfc850-date, asctime-date), as seconds since 1970; nullopt if
// the value is none of them.
std::optional<int64_t> parse_http_date(std::string_view value);

// Every field of that name joined as one list (RFC 9110 §5.3); nullopt
// when the request has none.
std::optional<std::string> combined_field(const Request& request, std::string_view name);

enum class TagMatch : uint8_t { strong, weak };
// RFC 9110 §13.1.1-2: whether the list ("*" or 1#entity-tag) matches `etag`
// (one of ours, strong). nullopt if the list is malformed.
std::optional<bool> etag_list_matches(std::string_view list, std::string_view etag,
                                      TagMatch comparison);

// RFC 9110 §13.2.2, for GET and HEAD of a representation that exists.
enum class Precondition : uint8_t { proceed, not_modified, failed };
struct Validators {
  std::string_view etag;  // strong
  int64_t modified = 0;   // Last-Modified
};
Precondition evaluate_preconditions(const Request& request, const Validators& v);
// RFC 9110 §13.1.5: whether a Range may be honoured (true without If-Range).
bool if_range_holds(const Request& request, const Validators& v);

// RFC 9110 §14.1.1-2: what a Range field asks of a representation of
// `length` bytes.
enum class RangeVerdict : uint8_t {
  ignore,         // no Range, another unit, invalid syntax: 200 with all of it
  single,         // one satisfiable range: 206
  multiple,       // more than one satisfiable range: 200 (docs/http.md says why)
  unsatisfiable,  // none satisfiable: 416
};
struct RangeRequest {
  RangeVerdict verdict = RangeVerdict::ignore;
  uint64_t first = 0;  // RangeVerdict::single: inclusive
  uint64_t last = 0;
};
RangeRequest evaluate_range(std::string_view value, uint64_t length);

// The content codings a file can be sent in: its own bytes or a
// precompressed variant.
enum class Coding : uint8_t { identity, gzip, br };

// RFC 9110 §12.5.3: the coding to send, among the variants the file has:
// the acceptable one (q > 0, not below an explicit identity) with the
// highest q, br before gzip when equal (smaller); identity when none is,
// or without Accept-Encoding.
Coding choose_coding(const Request& request, bool has_gzip, bool has_br);

}  // namespace keel::http::static_detail
