#include <net/ip4_addr.hpp>

namespace net::ip4 {

std::optional<Addr> Addr::parse(std::string_view text) {
  uint32_t value = 0;
  int parts = 0;
  std::size_t i = 0;
  while (parts < 4) {
    std::size_t start = i;
    uint32_t part = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 3) {
      part = part * 10 + uint32_t(text[i] - '0');
      ++i;
    }
    std::size_t digits = i - start;
    if (digits == 0 || part > 255 || (digits > 1 && text[start] == '0')) return std::nullopt;
    value = value << 8 | part;
    ++parts;
    if (parts < 4) {
      if (i >= text.size() || text[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != text.size()) return std::nullopt;
  return Addr{value};
}

std::string Addr::to_string() const {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) {
    s += std::to_string((value >> shift) & 0xff);
    if (shift) s += '.';
  }
  return s;
}

}  // namespace net::ip4
