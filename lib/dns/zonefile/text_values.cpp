// Presentation-format field readers.
#include "zonefile/text_values.hpp"

#include <arpa/inet.h>

#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"

namespace keel::dns::zonefile {
namespace {
constexpr uint32_t max_ttl = 0x7fffffff;  // RFC 2181 §8

bool is_digit(char c) { return c >= '0' && c <= '9'; }
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

// One escape at raw[i] == '\\'; appends the octet, advances i past it.
Error read_escape(std::string_view raw, std::size_t& i, std::string& out) {
  if (i + 1 >= raw.size()) return "a '\\' at the end of " + quote(raw);
  if (is_digit(raw[i + 1])) {
    if (i + 3 >= raw.size() || !is_digit(raw[i + 2]) || !is_digit(raw[i + 3])) {
      return "\\DDD needs three digits in " + quote(raw);
    }
    const int value = (raw[i + 1] - '0') * 100 + (raw[i + 2] - '0') * 10 + (raw[i + 3] - '0');
    if (value > 255) return "\\" + std::string(raw.substr(i + 1, 3)) + " is over 255";
    out += static_cast<char>(value);
    i += 4;
    return {};
  }
  out += raw[i + 1];
  i += 2;
  return {};
}
}  // namespace

bool is_decimal(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!is_digit(c)) return false;
  return true;
}

bool same_text(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(octet(a, i)) != ascii_lower(octet(b, i))) return false;
  return true;
}

Error unescape(std::string_view raw, std::string& out) {
  for (std::size_t i = 0; i < raw.size();) {
    if (raw[i] == '\\') {
      if (Error e = read_escape(raw, i, out); !e.empty()) return e;
    } else {
      out += raw[i++];
    }
  }
  return {};
}

Error parse_name(std::string_view raw, std::string_view origin, std::string& out) {
  out.clear();
  if (raw == "@") {
    out.assign(origin);
    return {};
  }
  if (raw == ".") {
    out.assign(1, '\0');
    return {};
  }
  std::string label;
  auto add_label = [&]() -> Error {
    if (label.empty()) return "empty label in " + quote(raw);
    if (label.size() > max_label_length) return "label over 63 octets in " + quote(raw);
    out += static_cast<char>(label.size());
    out += label;
    label.clear();
    return {};
  };
  bool absolute = false;
  for (std::size_t i = 0; i < raw.size();) {
    if (raw[i] == '.') {
      if (Error e = add_label(); !e.empty()) return e;
      absolute = ++i == raw.size();
    } else if (raw[i] == '\\') {
      if (Error e = read_escape(raw, i, label); !e.empty()) return e;
    } else {
      label += raw[i++];
    }
  }
  if (absolute) {
    out += '\0';
  } else {
    if (Error e = add_label(); !e.empty()) return e;
    out.append(origin);
  }
  if (out.size() > max_name_length) return "name over 255 octets: " + quote(raw);
  return {};
}

Error parse_number(std::string_view text, uint32_t max, uint32_t& out) {
  if (!is_decimal(text)) return quote(text) + " is not a number";
  uint64_t value = 0;
  for (char c : text) {
    value = value * 10 + uint64_t(c - '0');
    if (value > max) return quote(text) + " is over " + std::to_string(max);
  }
  out = uint32_t(value);
  return {};
}

Error parse_ttl(std::string_view text, uint32_t& out) {
  if (is_decimal(text)) {
    Error e = parse_number(text, max_ttl, out);
    return e.empty() ? e : quote(text) + " is not a TTL (0 to 2147483647 seconds)";
  }
  uint64_t total = 0, value = 0;
  bool digits = false;
  for (char c : text) {
    if (is_digit(c)) {
      value = value * 10 + uint64_t(c - '0');
      digits = true;
      if (value > max_ttl) return quote(text) + " is not a TTL";
      continue;
    }
    uint64_t unit = 0;
    switch (c | 0x20) {
      case 'w':
        unit = 604800;
        break;
      case 'd':
        unit = 86400;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'm':
        unit = 60;
        break;
      case 's':
        unit = 1;
        break;
      default:
        return quote(text) + " is not a TTL";
    }
    if (!digits) return quote(text) + " is not a TTL";
    total += value * unit;
    if (total > max_ttl) return quote(text) + " is over 2147483647 seconds";
    value = 0;
    digits = false;
  }
  if (digits) return quote(text) + " is not a TTL (a number after the last unit)";
  out = uint32_t(total);
  return {};
}

Error parse_ipv4(std::string_view text, std::string& out) {
  std::size_t pos = 0;
  for (int part = 0; part < 4; ++part) {
    std::size_t end = pos;
    while (end < text.size() && is_digit(text[end])) ++end;
    const std::string_view digits = text.substr(pos, end - pos);
    uint32_t value = 0;
    const bool leading_zero = digits.size() > 1 && digits[0] == '0';
    if (digits.empty() || digits.size() > 3 || leading_zero ||
        !parse_number(digits, 255, value).empty()) {
      return quote(text) + " is not an IPv4 address";
    }
    out += static_cast<char>(value);
    if (part < 3) {
      if (end >= text.size() || text[end] != '.') return quote(text) + " is not an IPv4 address";
      ++end;
    } else if (end != text.size()) {
      return quote(text) + " is not an IPv4 address";
    }
    pos = end;
  }
  return {};
}

Error parse_ipv6(std::string_view text, std::string& out) {
  constexpr std::size_t max_text = 64;
  char buffer[max_text];
  unsigned char address[16];
  if (text.size() >= max_text) return quote(text) + " is not an IPv6 address";
  text.copy(buffer, text.size());
  buffer[text.size()] = '\0';
  if (inet_pton(AF_INET6, buffer, address) != 1) return quote(text) + " is not an IPv6 address";
  out.append(reinterpret_cast<const char*>(address), sizeof address);
  return {};
}

Error parse_hex(std::string_view text, std::string& out) {
  if (text.size() % 2 != 0) return "odd number of hex digits in " + quote(text);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = hex_value(text[i]), lo = hex_value(text[i + 1]);
    if (hi < 0 || lo < 0) return quote(text) + " is not hex";
    out += static_cast<char>(hi << 4 | lo);
  }
  return {};
}

Error parse_character_string(std::string_view raw, std::string& out) {
  std::string value;
  if (Error e = unescape(raw, value); !e.empty()) return e;
  if (value.size() > max_character_string) return "string over 255 octets";
  out += static_cast<char>(value.size());
  out += value;
  return {};
}

}  // namespace keel::dns::zonefile
