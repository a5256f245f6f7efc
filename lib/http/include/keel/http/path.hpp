// Request paths as a router sees them: split at '/', each segment
// percent-decoded on its own (RFC 3986 §2.1, §3.3), so an encoded "%2F" is
// a character of its segment, never a separator.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel::http {

enum class PathError : uint8_t {
  none,
  not_absolute,  // does not start with '/'
  bad_escape,    // '%' not followed by two hex digits
  nul,           // "%00": no use in a path, and a classic truncation attack
  dot_segment,   // "." or ".." (also encoded): RFC 3986 §5.2.4 leaves their
                 // removal to the client; a server refuses them
};
const char* to_string(PathError error);

// Decodes one segment ("a%20b" -> "a b"). False on an invalid escape.
bool percent_decode(std::string_view in, std::string& out);

// "/a/b%2Fc/" -> {"a", "b/c", ""}; "/" -> {""}.
PathError split_path(std::string_view path, std::vector<std::string>& segments);

}  // namespace keel::http
