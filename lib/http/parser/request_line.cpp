// The request line (RFC 9112 §3) and the request-target's four forms (§3.2).
#include <algorithm>

#include "parser/rules.hpp"
#include "syntax/chars.hpp"

namespace keel::http::rules {
namespace {

using namespace syntax;

// RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT (case-sensitive).
constexpr std::string_view version_prefix = "HTTP/";
constexpr std::size_t version_length = 8;
constexpr int supported_major = 1;
// RFC 9110 §2.5: a higher minor version of a major we implement is
// processed as the highest minor we conform to.
constexpr uint8_t highest_minor = 1;
constexpr uint32_t max_port = 65535;
constexpr std::size_t max_port_digits = 5;

// RFC 3986 §2.1: '%' HEXDIG HEXDIG; every other byte from `allowed`.
bool valid_chars(std::string_view s, bool (*allowed)(char)) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size() || hex_value(s[i + 1]) < 0 || hex_value(s[i + 2]) < 0) return false;
      i += 2;
    } else if (!allowed(s[i])) {
      return false;
    }
  }
  return true;
}

bool is_reg_name_char(char c) {
  return is_target_char(c) && c != ':' && c != '@' && c != '/' && c != '?';
}
bool is_ip_literal_char(char c) { return hex_value(c) >= 0 || c == ':' || c == '.'; }

bool valid_port(std::string_view port) {
  if (port.size() > max_port_digits) return false;
  uint32_t value = 0;
  for (char c : port) {
    if (!is_digit(c)) return false;
    value = value * 10 + uint32_t(c - '0');
  }
  return value <= max_port;
}

// RFC 3986 §3.1: scheme; HTTP serves http and https only (RFC 9110 §4.2).
bool http_scheme(std::string_view scheme) {
  return iequals(scheme, "http") || iequals(scheme, "https");
}

void split_path_query(std::string_view path_query, Request& out) {
  const std::size_t q = path_query.find('?');
  out.path.assign(path_query.substr(0, q));
  out.query.assign(q == std::string_view::npos ? std::string_view() : path_query.substr(q + 1));
  if (out.path.empty()) out.path = "/";  // RFC 9112 §3.2.1 (absolute-form's empty path)
}

ParseError parse_target(std::string_view target, Request& out) {
  // §3.2.4: asterisk-form, for a server-wide OPTIONS only.
  if (target == "*") {
    if (out.method != Method::options) return ParseError::bad_target;
    out.form = TargetForm::asterisk;
    return ParseError::none;
  }
  // §3.2.3: authority-form, for CONNECT only, and CONNECT takes only it.
  if (out.method == Method::connect) {
    if (!valid_authority(target, true)) return ParseError::bad_target;
    out.form = TargetForm::authority;
    out.authority.assign(target);
    return ParseError::none;
  }
  // §3.2.1: origin-form.
  if (target.front() == '/') {
    if (!valid_chars(target, is_target_char)) return ParseError::bad_target;
    out.form = TargetForm::origin;
    split_path_query(target, out);
    return ParseError::none;
  }
  // §3.2.2: absolute-form; a server MUST accept it. "scheme://authority"
  // then path-abempty and the query.
  const std::size_t colon = target.find(':');
  if (colon == std::string_view::npos || !http_scheme(target.substr(0, colon)) ||
      target.substr(colon + 1, 2) != "//")
    return ParseError::bad_target;
  std::string_view rest = target.substr(colon + 3);
  const std::size_t end = std::min(rest.find('/'), rest.find('?'));
  const std::string_view authority = rest.substr(0, end);
  // RFC 9110 §4.2.1: an http URI with an empty host is invalid; §4.2.4: so
  // is one with userinfo (valid_authority refuses '@').
  if (authority.empty() || authority.front() == ':' || !valid_authority(authority, false))
    return ParseError::bad_target;
  const std::string_view path_query =
      end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (!valid_chars(path_query, is_target_char)) return ParseError::bad_target;
  out.form = TargetForm::absolute;
  out.authority.assign(authority);
  split_path_query(path_query, out);
  return ParseError::none;
}

}  // namespace

bool valid_authority(std::string_view authority, bool port_required) {
  std::string_view host = authority;
  std::string_view port;
  bool has_port = false;
  if (!host.empty() && host.front() == '[') {  // IP-literal (RFC 3986 §3.2.2)
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos || close < 2) return false;
    if (!std::all_of(host.begin() + 1, host.begin() + close, is_ip_literal_char)) return false;
    std::string_view after = host.substr(close + 1);
    host = host.substr(0, close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return false;
      has_port = true;
      port = after.substr(1);
    }
  } else {
    const std::size_t colon = host.find(':');
    if (colon != std::string_view::npos) {
      has_port = true;
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
    }
    if (!valid_chars(host, is_reg_name_char)) return false;
  }
  if (port_required && (!has_port || port.empty() || host.empty())) return false;
  return valid_port(port);
}

ParseError parse_request_line(std::string_view line, Request& out) {
  const std::size_t sp1 = line.find(sp);
  if (sp1 == std::string_view::npos) return ParseError::bad_request_line;
  const std::string_view method = line.substr(0, sp1);
  const std::string_view rest = line.substr(sp1 + 1);
  const std::size_t sp2 = rest.find(sp);
  if (sp2 == std::string_view::npos) return ParseError::bad_request_line;
  const std::string_view target = rest.substr(0, sp2);
  const std::string_view version = rest.substr(sp2 + 1);
  if (!is_token(method) || target.empty()) return ParseError::bad_request_line;

  if (version.size() != version_length ||
      version.substr(0, version_prefix.size()) != version_prefix || !is_digit(version[5]) ||
      version[6] != '.' || !is_digit(version[7]))
    return ParseError::bad_version;
  if (version[5] - '0' != supported_major) return ParseError::unsupported_version;
  out.version_minor = std::min<uint8_t>(uint8_t(version[7] - '0'), highest_minor);

  out.method_text.assign(method);
  out.method = method_from(method);
  out.target.assign(target);
  return parse_target(target, out);
}

ParseError long_request_line(std::string_view prefix) {
  const std::size_t sp1 = prefix.find(sp);
  if (sp1 == std::string_view::npos) return ParseError::method_too_long;
  if (prefix.find(sp, sp1 + 1) == std::string_view::npos) return ParseError::target_too_long;
  return ParseError::request_line_too_long;
}

}  // namespace keel::http::rules
