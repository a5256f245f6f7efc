// Finding a file in an embedded tree, and its media type by extension.
#include <algorithm>
#include <array>
#include <string>

#include "keel/http/static_files.hpp"
#include "syntax/chars.hpp"

namespace keel::http {
namespace {

struct TypeEntry {
  std::string_view extension;  // lower case, without the dot
  std::string_view type;
};
// Types of the files a site serves (after nginx's mime.types). Text gets
// "charset=utf-8": an embedded site is written in UTF-8, and without it a
// browser guesses (docs/http.md has the table).
constexpr std::array<TypeEntry, 26> content_types = {{
    {"html", "text/html; charset=utf-8"},
    {"htm", "text/html; charset=utf-8"},
    {"css", "text/css; charset=utf-8"},
    {"js", "application/javascript; charset=utf-8"},
    {"mjs", "application/javascript; charset=utf-8"},
    {"json", "application/json"},
    {"txt", "text/plain; charset=utf-8"},
    {"md", "text/markdown; charset=utf-8"},
    {"csv", "text/csv; charset=utf-8"},
    {"xml", "text/xml; charset=utf-8"},
    {"svg", "image/svg+xml"},
    {"png", "image/png"},
    {"jpg", "image/jpeg"},
    {"jpeg", "image/jpeg"},
    {"gif", "image/gif"},
    {"webp", "image/webp"},
    {"ico", "image/x-icon"},
    {"woff", "font/woff"},
    {"woff2", "font/woff2"},
    {"ttf", "font/ttf"},
    {"wasm", "application/wasm"},
    {"pdf", "application/pdf"},
    {"zip", "application/zip"},
    {"gz", "application/gzip"},
    {"mp4", "video/mp4"},
    {"webmanifest", "application/manifest+json"},
}};
constexpr std::string_view unknown_type = "application/octet-stream";
constexpr std::string_view index_name = "index.html";

}  // namespace

std::string_view content_type_for(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return unknown_type;  // ".profile" has none
  const std::string_view ext = name.substr(dot + 1);
  for (const TypeEntry& e : content_types)
    if (syntax::iequals(e.extension, ext)) return e.type;
  return unknown_type;
}

const StaticFile* StaticTree::find(std::string_view path) const {
  auto it = std::lower_bound(files.begin(), files.end(), path,
                             [](const StaticFile& f, std::string_view p) { return f.path < p; });
  return it != files.end() && it->path == path ? &*it : nullptr;
}

StaticFound lookup_static(const StaticTree& tree, std::string_view path) {
  StaticFound found;
  // The tree is a table of exact names: nothing outside it can be named,
  // whatever the path holds (the router refuses dot segments before this).
  if (path.empty() || path.back() == '/') {
    found.file = tree.find(std::string(path) + std::string(index_name));
    if (found.file != nullptr) found.kind = StaticLookup::file;
    return found;
  }
  if ((found.file = tree.find(path)) != nullptr) {
    found.kind = StaticLookup::file;
    return found;
  }
  // A directory: some file's path starts with "path/" (the first such
  // sorts right after the prefix itself).
  const std::string prefix = std::string(path) + "/";
  auto it = std::lower_bound(tree.files.begin(), tree.files.end(), std::string_view(prefix),
                             [](const StaticFile& f, std::string_view p) { return f.path < p; });
  if (it != tree.files.end() && it->path.starts_with(prefix)) found.kind = StaticLookup::directory;
  return found;
}

}  // namespace keel::http
