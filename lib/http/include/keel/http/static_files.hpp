// Static files: a read-only tree compiled into the image from a folder at
// build time (keel_static_files() in cmake/keel-static-files.cmake), and
// the answer to a GET or HEAD of one of its files: content type, ETag and
// Last-Modified, conditional requests (RFC 9110 §13), one byte range (RFC
// 9110 §14), a precompressed gzip or brotli variant when the client accepts it
// (docs/http.md, "Static files").
//
//   # CMakeLists.txt
//   keel_static_files(web ${CMAKE_CURRENT_SOURCE_DIR}/site GZIP)
//   // service.cpp
//   http::serve_static(server, "/", http::static_files());
//
// A file's content is embedded data that lives as long as the program, so
// the server sends it by reference (Exchange::respond_static), never copied.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "keel/http/request.hpp"
#include "keel/http/response.hpp"

namespace keel::http {

struct StaticFile {
  std::string_view path;  // relative to the folder, '/'-separated: "css/site.css"
  std::span<const uint8_t> content;
  std::span<const uint8_t> gzip;  // the gzip variant; empty if none
  int64_t modified = 0;           // the file's modification time, seconds since 1970
  std::string_view etag;          // strong, from a hash of content: "\"3f1c...\""
  std::string_view gzip_etag;     // the variant's own (RFC 9110 §8.8.3: another representation)
  std::span<const uint8_t> br;    // the brotli variant (RFC 7932); empty if none
  std::string_view br_etag;       // its own
};

struct StaticTree {
  std::span<const StaticFile> files;  // sorted by path (the generator's order)

  // The file at exactly `path` (decoded, relative, no leading '/'), or null.
  const StaticFile* find(std::string_view path) const;
};

// The tree keel_static_files() embedded into this program (a link error
// without that call). Other names come from its NAME argument.
const StaticTree& static_files();

// What a path of a mounted tree names.
enum class StaticLookup : uint8_t {
  file,       // serve it
  directory,  // a directory asked without the final '/': redirect (301)
  not_found,
};
struct StaticFound {
  StaticLookup kind = StaticLookup::not_found;
  const StaticFile* file = nullptr;
};
// `path` is the decoded path below the mount point ("" for its root); one
// ending in '/' (or empty) names a directory, served by its index.html (404
// without one: there is no listing).
StaticFound lookup_static(const StaticTree& tree, std::string_view path);

// The media type for a file name, by its extension (docs/http.md has the
// table); application/octet-stream when unknown.
std::string_view content_type_for(std::string_view path);

// The answer to GET or HEAD of `file`: the head (status, fields, length)
// and the content to send, a span of the file's embedded bytes.
struct StaticReply {
  Response head;
  std::span<const uint8_t> content;
};
StaticReply answer_static(const StaticFile& file, const Request& request);

}  // namespace keel::http
