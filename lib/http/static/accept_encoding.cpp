// Accept-Encoding (RFC 9110 §12.5.3, qvalues §12.4.2): which of a file's
// precompressed variants (gzip, br) to send, if any.
#include <algorithm>

#include "static/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http::static_detail {
namespace {

// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), in
// thousandths; -1 if malformed.
int parse_qvalue(std::string_view s) {
  if (s.empty() || (s[0] != '0' && s[0] != '1')) return -1;
  int whole = s[0] - '0';
  int thousandths = 0;
  if (s.size() > 1) {
    if (s[1] != '.' || s.size() > 5) return -1;
    int scale = 100;
    for (char c : s.substr(2)) {
      if (!syntax::is_digit(c)) return -1;
      thousandths += (c - '0') * scale;
      scale /= 10;
    }
  }
  if (whole == 1 && thousandths != 0) return -1;
  return whole * 1000 + thousandths;
}

}  // namespace

Coding choose_coding(const Request& request, bool has_gzip, bool has_br) {
  // Without the field any coding is acceptable (§12.5.3), but nginx and
  // every client-facing server send identity then: a client that did not
  // ask may not decode (docs/http.md).
  auto value = combined_field(request, "Accept-Encoding");
  if (!value) return Coding::identity;
  int gzip = -1;      // the q of gzip (or x-gzip), -1 if not listed
  int br = -1;        // of br
  int identity = -1;  // of identity
  int any = -1;       // of "*"
  std::string_view rest = *value;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view element = syntax::trim_ows(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (element.empty()) continue;
    const std::size_t semi = element.find(';');
    const std::string_view coding = syntax::trim_ows(element.substr(0, semi));
    int q = 1000;
    if (semi != std::string_view::npos) {
      // weight = OWS ";" OWS "q=" qvalue; a malformed one drops the element.
      std::string_view param = syntax::trim_ows(element.substr(semi + 1));
      if (param.size() < 2 || syntax::lower(param[0]) != 'q' || param[1] != '=') continue;
      q = parse_qvalue(param.substr(2));
      if (q < 0) continue;
    }
    if (syntax::iequals(coding, "gzip") || syntax::iequals(coding, "x-gzip"))
      gzip = std::max(gzip, q);
    else if (syntax::iequals(coding, "br"))
      br = std::max(br, q);
    else if (syntax::iequals(coding, "identity"))
      identity = q;
    else if (coding == "*")
      any = q;
  }
  // "*" stands for the codings not listed; not listed, or q=0, is "not
  // acceptable"; and identity listed above a coding is preferred to it.
  auto weight = [&](bool has, int q) {
    if (!has) return -1;
    if (q < 0) q = any;
    if (q <= 0 || (identity >= 0 && q < identity)) return -1;
    return q;
  };
  const int g = weight(has_gzip, gzip);
  const int b = weight(has_br, br);
  if (g < 0 && b < 0) return Coding::identity;
  // Equal weights: br, whose variant is the smaller (RFC 7932's reason to be).
  return b >= g ? Coding::br : Coding::gzip;
}

}  // namespace keel::http::static_detail
