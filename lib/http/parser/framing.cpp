// What the header section means for the connection, decided once it is
// whole: Host (RFC 9112 §3.2), the body's framing (§6.1-§6.3), persistence
// (§9.3) and Expect (RFC 9110 §10.1.1). The framing rules are where request
// smuggling lives: every message whose length two parsers could read
// differently is refused, never guessed.
#include <limits>
#include <string>
#include <vector>

#include "parser/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http::rules {
namespace {

using namespace syntax;

constexpr uint64_t saturated = std::numeric_limits<uint64_t>::max();

// Calls `each` with every non-empty element of a comma-separated list
// (RFC 9110 §5.6.1: empty elements are ignored), whitespace trimmed.
template <typename F>
void for_each_element(std::string_view list, F each) {
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view element = trim_ows(list.substr(0, comma));
    if (!element.empty()) each(element);
    if (comma == std::string_view::npos) return;
    list.remove_prefix(comma + 1);
  }
}

// RFC 9110 §8.6: Content-Length = 1*DIGIT. A list of one repeated value
// ("5, 5", or the field twice) MAY be taken as that value; anything else
// (a sign, "5, 6", an empty element) is invalid framing (RFC 9112 §6.3).
// Values too large for 64 bits saturate: they are past any max_body.
bool content_length_value(std::string_view value, bool& seen, uint64_t& length) {
  bool valid = true;
  bool any = false;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t comma = value.find(',', start);
    if (comma == std::string_view::npos) comma = value.size();
    const std::string_view element = trim_ows(value.substr(start, comma - start));
    start = comma + 1;
    if (element.empty()) return false;
    uint64_t n = 0;
    for (char c : element) {
      if (!is_digit(c)) return false;
      const auto digit = uint64_t(c - '0');
      n = n > (saturated - digit) / 10 ? saturated : n * 10 + digit;
    }
    if (seen && n != length) valid = false;
    seen = true;
    length = n;
    any = true;
  }
  return valid && any;
}

// RFC 9112 §7: transfer-coding = token *( OWS ";" OWS transfer-parameter ),
// transfer-parameter = token BWS "=" BWS ( token / quoted-string ). Only
// the coding's name matters here; parameters are checked for the grammar's
// characters (tokens, '=', quotes) and make "chunked" invalid (it has none).
struct Coding {
  std::string_view name;
  bool has_parameters = false;
  bool valid = false;
};
Coding parse_coding(std::string_view element) {
  Coding c;
  const std::size_t semi = element.find(';');
  c.name = trim_ows(element.substr(0, semi));
  c.has_parameters = semi != std::string_view::npos;
  c.valid = is_token(c.name);
  if (c.has_parameters) {
    for (char ch : element.substr(semi))
      if (!is_tchar(ch) && !is_ows(ch) && ch != ';' && ch != '=' && ch != '"') c.valid = false;
  }
  return c;
}

ParseError transfer_codings(const std::vector<std::string_view>& elements) {
  if (elements.empty()) return ParseError::bad_transfer_encoding;
  std::vector<Coding> codings;
  for (std::string_view e : elements) {
    codings.push_back(parse_coding(e));
    if (!codings.back().valid) return ParseError::bad_transfer_encoding;
  }
  // RFC 9112 §6.3 (4): chunked not the final coding: 400 and close. §7.1:
  // chunked applied twice is as bad (two TE fields "chunked" are that).
  for (std::size_t i = 0; i < codings.size(); ++i) {
    if (!iequals(codings[i].name, "chunked")) continue;
    if (i + 1 != codings.size()) return ParseError::chunked_not_last;
    if (codings[i].has_parameters) return ParseError::bad_transfer_encoding;
  }
  if (!iequals(codings.back().name, "chunked")) return ParseError::chunked_not_last;
  // §6.1: a coding we do not implement (gzip, ...) before chunked: 501.
  if (codings.size() > 1) return ParseError::unknown_transfer_coding;
  return ParseError::none;
}

}  // namespace

ParseError decide_framing(Request& r, const Limits& limits) {
  std::size_t hosts = 0;
  const std::string* host = nullptr;
  bool has_length = false;
  bool length_valid = true;
  uint64_t length = 0;
  std::vector<std::string_view> codings;
  bool has_transfer_encoding = false;
  bool close = false;
  bool keep_alive = false;
  const std::string* expect = nullptr;

  for (const Field& f : r.fields) {
    if (iequals(f.name, "host")) {
      ++hosts;
      host = &f.value;
    } else if (iequals(f.name, "content-length")) {
      length_valid = content_length_value(f.value, has_length, length) && length_valid;
      has_length = true;
    } else if (iequals(f.name, "transfer-encoding")) {
      has_transfer_encoding = true;
      for_each_element(f.value, [&](std::string_view e) { codings.push_back(e); });
    } else if (iequals(f.name, "connection")) {
      // RFC 9110 §7.6.1: connection options are case-insensitive tokens.
      for_each_element(f.value, [&](std::string_view e) {
        close = close || iequals(e, "close");
        keep_alive = keep_alive || iequals(e, "keep-alive");
      });
    } else if (iequals(f.name, "expect")) {
      expect = &f.value;
    }
  }

  // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without
  // Host, with more than one Host field line, or with an invalid Host.
  if (r.version_minor >= 1 && hosts == 0) return ParseError::missing_host;
  if (hosts > 1) return ParseError::duplicate_host;
  if (host != nullptr && !host->empty() && !valid_authority(*host, false))
    return ParseError::bad_host;

  if (has_transfer_encoding) {
    // §6.1: Transfer-Encoding in HTTP/1.0 is faulty framing; with
    // Content-Length too, a server MAY reject (and MUST close): we reject.
    if (r.version_minor == 0) return ParseError::transfer_encoding_in_http10;
    if (has_length) return ParseError::content_length_with_transfer_encoding;
    if (ParseError e = transfer_codings(codings); e != ParseError::none) return e;
    if (!limits.chunked_bodies) return ParseError::chunked_not_accepted;
    r.framing = BodyFraming::chunked;
  } else if (has_length) {
    if (!length_valid) return ParseError::bad_content_length;
    if (length > limits.max_body) return ParseError::body_too_large;
    r.framing = BodyFraming::content_length;
    r.content_length = length;
  } else {
    r.framing = BodyFraming::none;  // §6.3 (7): a request without either has no content
  }

  // §9.3: HTTP/1.1 persists unless "close"; HTTP/1.0 only with "keep-alive".
  r.keep_alive = !close && (r.version_minor >= 1 || keep_alive);

  // RFC 9110 §10.1.1: 100-continue is the only expectation; another MAY get
  // 417. An HTTP/1.0 request's expectation MUST be ignored.
  if (expect != nullptr && r.version_minor >= 1) {
    bool other = false;
    bool proceed = false;
    for_each_element(*expect, [&](std::string_view e) {
      if (iequals(e, "100-continue"))
        proceed = true;
      else
        other = true;
    });
    if (other) return ParseError::unsupported_expectation;
    r.expect_continue = proceed;
  }
  return ParseError::none;
}

}  // namespace keel::http::rules
