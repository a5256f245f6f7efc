// Family-neutral addresses for the public API: services hold a net::Address
// or a net::Endpoint (address + port) whatever the family, so IPv6 can come
// without changing their signatures. IPv4 and (a first slice of) IPv6 are
// carried: docs/net/ipv6.md.
#pragma once
#include <array>
#include <compare>
#include <cstdint>
#include <net/ip4_addr.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace net {

namespace ip6 {
struct Addr {
  std::array<uint8_t, 16> bytes{};  // network byte order
  bool is_any() const { return *this == Addr{}; }
  friend bool operator==(const Addr&, const Addr&) = default;
  friend auto operator<=>(const Addr&, const Addr&) = default;
};
}  // namespace ip6

class Address {
 public:
  enum class Family : uint8_t { none, ip4, ip6 };

  constexpr Address() = default;
  constexpr Address(ip4::Addr a) : family_(Family::ip4), ip4_(a) {}  // NOLINT: implicit on purpose
  Address(const ip6::Addr& a) : family_(Family::ip6), ip6_(a) {}     // NOLINT

  Family family() const { return family_; }
  bool is_ip4() const { return family_ == Family::ip4; }
  bool is_ip6() const { return family_ == Family::ip6; }
  // The IPv4 address; any() for another family.
  ip4::Addr ip4() const { return is_ip4() ? ip4_ : ip4::Addr{}; }
  const ip6::Addr& ip6() const { return ip6_; }
  // No address, or the unspecified one of its family (0.0.0.0, ::).
  bool is_any() const {
    return family_ == Family::none || (is_ip4() && ip4_.is_any()) || (is_ip6() && ip6_.is_any());
  }

  // "10.0.0.2" or "2001:db8::1"; nullopt for anything else.
  static std::optional<Address> parse(std::string_view text);
  std::string to_string() const;

  friend bool operator==(const Address&, const Address&) = default;
  friend auto operator<=>(const Address&, const Address&) = default;

 private:
  Family family_ = Family::none;
  ip4::Addr ip4_;
  ip6::Addr ip6_;
};

struct Endpoint {
  Address address;
  uint16_t port = 0;

  // "10.0.0.2:53", "[2001:db8::1]:53"
  std::string to_string() const;
  static std::optional<Endpoint> parse(std::string_view text);
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
  friend auto operator<=>(const Endpoint&, const Endpoint&) = default;
};

}  // namespace net
