// Ethernet II frames (IEEE 802.3, RFC 894): the header as a parsed value.
#pragma once
#include <cstdint>
#include <net/ethernet_addr.hpp>
#include <optional>
#include <span>

#include "checksum.hpp"

namespace net::wire {

inline constexpr uint16_t ethertype_ip4 = 0x0800;
inline constexpr uint16_t ethertype_arp = 0x0806;
inline constexpr uint16_t ethertype_ip6 = 0x86dd;

struct EthernetRepr {
  static constexpr std::size_t size = 14;

  ethernet::Addr dst, src;
  uint16_t type = 0;

  // nullopt when the frame is shorter than the header.
  static std::optional<EthernetRepr> parse(std::span<const uint8_t> frame) {
    if (frame.size() < size) return std::nullopt;
    return EthernetRepr{ethernet::Addr::from(frame.data()), ethernet::Addr::from(frame.data() + 6),
                        load16(frame.data() + 12)};
  }
  // Writes the header into the first `size` bytes of `out`.
  void emit(std::span<uint8_t, size> out) const {
    dst.write(out.data());
    src.write(out.data() + 6);
    store16(out.data() + 12, type);
  }
  friend bool operator==(const EthernetRepr&, const EthernetRepr&) = default;
};

}  // namespace net::wire
