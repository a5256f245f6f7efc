// RFC 1035 §5 master files, read as NSD and BIND read them: $ORIGIN, $TTL
// (RFC 2308 §4), $INCLUDE, relative names and "@", omitted owner / TTL /
// class, parentheses, comments, \DDD and \X escapes, quoted strings, the
// types in rdata.hpp and RFC 3597's "TYPEnnn \# length hex" for the rest.
// Errors are "file:line:column: message"; reading goes on after an error to
// report as many as it can.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/dns/zone_data.hpp"

namespace keel::dns {

// Reads a file's whole text; false if it cannot.
using FileReader = std::function<bool(const std::string& path, std::string& text)>;
// The reader that uses the file system.
bool read_file(const std::string& path, std::string& text);

struct ZoneFileOptions {
  // $INCLUDE paths that are not absolute are taken relative to this folder
  // (NSD's zonesdir); empty: the folder of the zone file.
  std::string include_root;
  FileReader reader = read_file;
  std::size_t max_errors = 50;
};

// Reads zone `origin` (presentation format, e.g. "example.com") from `path`
// into `zone`. Returns false and appends to `errors` if anything was wrong.
bool read_zone_file(const std::string& path, std::string_view origin, ZoneData& zone,
                    std::vector<Diagnostic>& errors, const ZoneFileOptions& options = {});

// The same from text in memory; `file_name` is used in messages.
bool parse_zone_text(std::string_view text, const std::string& file_name, std::string_view origin,
                     ZoneData& zone, std::vector<Diagnostic>& errors,
                     const ZoneFileOptions& options = {});

}  // namespace keel::dns
