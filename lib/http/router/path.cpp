// Path segments and percent-decoding (RFC 3986 §2.1, §3.3, §5.2.4).
#include "keel/http/path.hpp"

#include "syntax/chars.hpp"

namespace keel::http {

const char* to_string(PathError error) {
  switch (error) {
    case PathError::none:
      return "none";
    case PathError::not_absolute:
      return "path does not start with /";
    case PathError::bad_escape:
      return "invalid percent escape";
    case PathError::nul:
      return "encoded NUL";
    case PathError::dot_segment:
      return "dot segment";
  }
  return "unknown";
}

bool percent_decode(std::string_view in, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = syntax::hex_value(in[i + 1]);
    const int lo = syntax::hex_value(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out += char(hi << 4 | lo);
    i += 2;
  }
  return true;
}

PathError split_path(std::string_view path, std::vector<std::string>& segments) {
  segments.clear();
  if (path.empty() || path.front() != '/') return PathError::not_absolute;
  path.remove_prefix(1);
  while (true) {
    const std::size_t slash = path.find('/');
    const std::string_view raw = path.substr(0, slash);
    std::string decoded;
    if (!percent_decode(raw, decoded)) return PathError::bad_escape;
    if (decoded.find('\0') != std::string::npos) return PathError::nul;
    if (decoded == "." || decoded == "..") return PathError::dot_segment;
    segments.push_back(std::move(decoded));
    if (slash == std::string_view::npos) return PathError::none;
    path.remove_prefix(slash + 1);
  }
}

}  // namespace keel::http
