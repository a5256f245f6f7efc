// Chunked transfer coding for responses (RFC 9112 §7.1): each piece of
// content goes out as chunk-size (hex) CRLF data CRLF; "0" CRLF, the
// trailer section and CRLF end it. Internal to lib/http.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace keel::http::chunked {

constexpr std::size_t crlf_size = 2;

// Hex digits of `size` (at least one).
inline std::size_t hex_digits(uint64_t size) {
  std::size_t n = 1;
  while (size >>= 4) ++n;
  return n;
}

// The bytes a chunk of `size` adds around its data.
inline std::size_t overhead(uint64_t size) { return hex_digits(size) + 2 * crlf_size; }

// The largest chunk whose framing fits, with it, in `room` bytes (0 if none).
inline std::size_t largest_fitting(std::size_t room) {
  for (std::size_t digits = 16; digits > 0; --digits) {
    if (room <= digits + 2 * crlf_size) continue;
    const std::size_t data = room - digits - 2 * crlf_size;
    if (hex_digits(data) <= digits) return data;
  }
  return 0;
}

inline std::string header(uint64_t size) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string s(hex_digits(size), '0');
  for (std::size_t i = s.size(); i-- > 0; size >>= 4) s[i] = hex[size & 0xf];
  return s + "\r\n";
}

}  // namespace keel::http::chunked
