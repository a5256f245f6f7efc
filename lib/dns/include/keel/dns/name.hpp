// Domain names in uncompressed wire format (RFC 1035 §3.1): length-prefixed
// labels ending with the root label, held in a std::string (as bytes) or
// viewed through a std::string_view. Names compare without regard to ASCII
// case (RFC 4343); the stored case is kept for output.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "keel/dns/constants.hpp"

namespace keel::dns {

inline uint8_t octet(std::string_view s, std::size_t i) { return static_cast<uint8_t>(s[i]); }
inline uint8_t ascii_lower(uint8_t c) {
  return c >= 'A' && c <= 'Z' ? uint8_t(c + ('a' - 'A')) : c;
}

// The root name, ".".
inline std::string_view root_name() { return std::string_view("\0", 1); }

// Length of the well-formed uncompressed name at the start of `wire` (labels
// of 1..63 octets, total at most 255, ending with the root label), or 0.
std::size_t name_length(std::string_view wire);
inline bool is_valid_name(std::string_view wire) {
  return !wire.empty() && name_length(wire) == wire.size();
}

// Labels before the root label ("www.example." has 2).
int label_count(std::string_view name);
// The name without its first `n` labels (n <= label_count).
std::string_view strip_labels(std::string_view name, int n);
// The first label's text (without its length octet).
std::string_view first_label(std::string_view name);
inline bool is_wildcard(std::string_view name) {
  return name.size() >= 2 && octet(name, 0) == 1 && name[1] == '*';
}

bool names_equal(std::string_view a, std::string_view b);  // case-insensitive
// `name` equals `parent` or lies below it.
bool is_subdomain(std::string_view name, std::string_view parent);
std::string lowercase_name(std::string_view name);
// FNV-1a over the lowercased octets: the key of the catalog's name index.
uint32_t name_hash(std::string_view lowered);

// `prefix` (labels, no root) + `suffix` (a full name); empty if over 255 octets.
std::string concat_names(std::string_view prefix_labels, std::string_view suffix);

// Presentation format (RFC 1035 §5.1) with a trailing dot; "." for the root.
// Octets outside letters, digits, '-', '_' and '*' are escaped as \DDD, and
// '.' or '\' inside a label as \. and \\.
std::string name_to_text(std::string_view name);

}  // namespace keel::dns
