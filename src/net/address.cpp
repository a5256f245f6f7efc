// Text forms of addresses (api/net/address.hpp, api/net/ip4_addr.hpp).
#include <arpa/inet.h>

#include <charconv>
#include <cstring>
#include <net/address.hpp>

namespace net {

std::optional<Address> Address::parse(std::string_view text) {
  if (auto a = ip4::Addr::parse(text)) return Address(*a);
  // inet_pton wants a NUL-terminated string of sane length.
  constexpr std::size_t max_ip6_text = 45;  // INET6_ADDRSTRLEN - 1
  if (text.size() > max_ip6_text || text.find(':') == std::string_view::npos) return std::nullopt;
  char buffer[max_ip6_text + 1];
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  ip6::Addr a;
  if (inet_pton(AF_INET6, buffer, a.bytes.data()) != 1) return std::nullopt;
  return Address(a);
}

std::string Address::to_string() const {
  switch (family_) {
    case Family::none:
      return "none";
    case Family::ip4:
      return ip4_.to_string();
    case Family::ip6: {
      char buffer[INET6_ADDRSTRLEN];
      inet_ntop(AF_INET6, ip6_.bytes.data(), buffer, sizeof buffer);
      return buffer;
    }
  }
  return "?";
}

std::string Endpoint::to_string() const {
  std::string a = address.to_string();
  return (address.is_ip6() ? "[" + a + "]" : a) + ":" + std::to_string(port);
}

std::optional<Endpoint> Endpoint::parse(std::string_view text) {
  std::string_view host, port;
  if (text.starts_with('[')) {
    auto close = text.find("]:");
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  auto address = Address::parse(host);
  if (!address || (address->is_ip6() && !text.starts_with('['))) return std::nullopt;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || port.empty() || value > 65535)
    return std::nullopt;
  return Endpoint{*address, uint16_t(value)};
}

}  // namespace net
