// IPv4 addresses as a value type, kept in host byte order.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace net::ip4 {

struct Addr {
  uint32_t value = 0;  // host byte order: 10.0.0.2 is 0x0a000002

  constexpr Addr() = default;
  constexpr explicit Addr(uint32_t v) : value(v) {}
  constexpr Addr(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
      : value(uint32_t(a) << 24 | uint32_t(b) << 16 | uint32_t(c) << 8 | d) {}

  static constexpr Addr any() { return Addr{}; }
  static constexpr Addr broadcast() { return Addr{0xffffffffu}; }
  constexpr bool is_any() const { return value == 0; }
  constexpr bool is_broadcast() const { return value == 0xffffffffu; }
  constexpr bool is_multicast() const { return (value >> 28) == 0xe; }  // 224/4
  constexpr bool is_loopback() const { return (value >> 24) == 127; }

  // Dotted quad; nullopt for anything else (no leading zeros' octal, no
  // short forms, each part 0..255).
  static std::optional<Addr> parse(std::string_view text);
  std::string to_string() const;

  // Network byte order, for headers.
  static Addr from_bytes(const uint8_t* p) {
    return Addr{uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]};
  }
  void write(uint8_t* p) const {
    p[0] = uint8_t(value >> 24);
    p[1] = uint8_t(value >> 16);
    p[2] = uint8_t(value >> 8);
    p[3] = uint8_t(value);
  }

  friend constexpr bool operator==(Addr, Addr) = default;
  friend constexpr auto operator<=>(Addr, Addr) = default;
};

// A netmask from a prefix length 0..32.
constexpr Addr netmask_of(int prefix) {
  return Addr{prefix <= 0 ? 0u : prefix >= 32 ? 0xffffffffu : ~0u << (32 - prefix)};
}

}  // namespace net::ip4
