// DNSSEC presentation forms.
#include "zonefile/dnssec_text.hpp"

#include <algorithm>

#include "keel/dns/name.hpp"

namespace keel::dns::zonefile {
namespace {

// DNSSEC algorithm mnemonics (RFC 4034 Appendix A.1, IANA registry).
struct Algorithm {
  std::string_view name;
  uint8_t number;
};
constexpr Algorithm algorithms[] = {
    {"RSAMD5", 1},
    {"DH", 2},
    {"DSA", 3},
    {"RSASHA1", 5},
    {"DSA-NSEC3-SHA1", 6},
    {"RSASHA1-NSEC3-SHA1", 7},
    {"RSASHA256", 8},
    {"RSASHA512", 10},
    {"ECC-GOST", 12},
    {"ECDSAP256SHA256", 13},
    {"ECDSAP384SHA384", 14},
    {"ED25519", 15},
    {"ED448", 16},
    {"INDIRECT", 252},
    {"PRIVATEDNS", 253},
    {"PRIVATEOID", 254},
};

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

int base32hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'v') return c - 'a' + 10;
  if (c >= 'A' && c <= 'V') return c - 'A' + 10;
  return -1;
}

// Days from 1970-01-01 to year-month-day (proleptic Gregorian; H. Hinnant's method).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void append32(uint32_t value, std::string& out) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>(value >> shift);
}

}  // namespace

Error parse_algorithm(std::string_view text, std::string& out) {
  for (const Algorithm& a : algorithms) {
    if (same_text(a.name, text)) {
      out += static_cast<char>(a.number);
      return {};
    }
  }
  uint32_t value = 0;
  if (Error e = parse_number(text, 255, value); !e.empty())
    return "unknown algorithm '" + std::string(text) + "'";
  out += static_cast<char>(value);
  return {};
}

Error parse_base64(std::string_view text, std::string& out) {
  // RFC 4648 §4: groups of four characters, '=' padding only at the end.
  if (text.empty() || text.size() % 4 != 0) return "'" + std::string(text) + "' is not base64";
  uint32_t bits = 0;
  int count = 0, padding = 0;
  for (char c : text) {
    const int v = base64_value(c);
    if (c == '=') {
      ++padding;
    } else if (v < 0 || padding > 0) {
      return "'" + std::string(text) + "' is not base64";
    }
    bits = bits << 6 | uint32_t(v < 0 ? 0 : v);
    if (++count == 4) {
      if (padding > 2) return "'" + std::string(text) + "' is not base64";
      out += static_cast<char>(bits >> 16);
      if (padding < 2) out += static_cast<char>(bits >> 8);
      if (padding < 1) out += static_cast<char>(bits);
      bits = 0;
      count = 0;
    }
  }
  return {};
}

Error parse_base32hex(std::string_view text, std::string& out) {
  std::string value;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const int v = base32hex_value(c);
    if (v < 0) return "'" + std::string(text) + "' is not base32hex";
    bits = (bits << 5 | uint32_t(v)) & 0xffff;
    count += 5;
    if (count >= 8) {
      count -= 8;
      value += static_cast<char>(bits >> count);
    }
  }
  // Leftover bits must be zero padding of less than one octet (RFC 4648 §6).
  if (value.empty() || count >= 5 || (bits & ((1u << count) - 1)) != 0)
    return "'" + std::string(text) + "' is not a base32hex hash";
  if (value.size() > 255) return "hash over 255 octets";
  out += static_cast<char>(value.size());
  out += value;
  return {};
}

Error parse_time(std::string_view text, std::string& out) {
  constexpr std::size_t date_digits = 14;  // YYYYMMDDHHmmSS
  if (!is_decimal(text)) return "'" + std::string(text) + "' is not a time";
  if (text.size() != date_digits) {
    uint32_t seconds = 0;
    if (Error e = parse_number(text, 0xffffffffu, seconds); !e.empty()) return e;
    append32(seconds, out);
    return {};
  }
  auto field = [&](std::size_t at, std::size_t n) {
    int64_t v = 0;
    for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (text[i] - '0');
    return v;
  };
  const int64_t year = field(0, 4), month = field(4, 2), day = field(6, 2);
  const int64_t hour = field(8, 2), minute = field(10, 2), second = field(12, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
      second > 59)
    return "'" + std::string(text) + "' is not a time (YYYYMMDDHHmmSS)";
  const int64_t seconds =
      days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  append32(uint32_t(seconds), out);  // RFC 4034 §3.1.5: serial number arithmetic, mod 2^32
  return {};
}

Error parse_salt(std::string_view text, std::string& out) {
  if (text == "-") {
    out += '\0';
    return {};
  }
  std::string salt;
  if (Error e = parse_hex(text, salt); !e.empty()) return e;
  if (salt.empty() || salt.size() > 255) return "a salt of 1 to 255 octets, or '-'";
  out += static_cast<char>(salt.size());
  out += salt;
  return {};
}

void append_type_bitmap(std::vector<uint16_t> types, std::string& out) {
  std::sort(types.begin(), types.end());
  types.erase(std::unique(types.begin(), types.end()), types.end());
  for (std::size_t i = 0; i < types.size();) {
    const int window = types[i] >> 8;
    uint8_t bits[32] = {};
    std::size_t length = 0;
    for (; i < types.size() && types[i] >> 8 == window; ++i) {
      const int low = types[i] & 0xff;
      bits[low / 8] |= uint8_t(0x80 >> (low % 8));
      length = std::size_t(low / 8 + 1);
    }
    out += static_cast<char>(window);
    out += static_cast<char>(length);
    out.append(reinterpret_cast<const char*>(bits), length);
  }
}

}  // namespace keel::dns::zonefile
