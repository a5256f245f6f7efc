// MAC addresses (IEEE 802), a small value type shared by drivers and stack.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

namespace net::ethernet {

struct Addr {
  std::array<uint8_t, 6> bytes{};

  static constexpr Addr broadcast() { return {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}; }
  bool is_broadcast() const { return *this == broadcast(); }
  // The I/G bit: group (multicast or broadcast) addresses.
  bool is_multicast() const { return bytes[0] & 1; }
  bool is_zero() const { return *this == Addr{}; }
  static Addr from(const uint8_t* p) {
    Addr a;
    std::memcpy(a.bytes.data(), p, 6);
    return a;
  }
  void write(uint8_t* p) const { std::memcpy(p, bytes.data(), 6); }
  std::string to_string() const {
    static constexpr char hex[] = "0123456789abcdef";
    std::string s;
    for (int i = 0; i < 6; ++i) {
      if (i) s += ':';
      s += hex[bytes[i] >> 4];
      s += hex[bytes[i] & 15];
    }
    return s;
  }
  friend bool operator==(const Addr&, const Addr&) = default;
};

}  // namespace net::ethernet
