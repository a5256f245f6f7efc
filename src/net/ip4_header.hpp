// IPv4 header constants (RFC 791 §3.1) and the parsed view the layers share.
#pragma once
#include <cstdint>

#include <net/ip4_addr.hpp>

namespace keel::net::ip4 {

inline constexpr uint32_t header_min = 20;   // IHL 5
inline constexpr uint32_t header_max = 60;   // IHL 15
inline constexpr uint32_t max_total_length = 65535;
inline constexpr uint8_t version = 4;
inline constexpr uint8_t protocol_icmp = 1;
inline constexpr uint8_t protocol_udp = 17;
inline constexpr uint8_t default_ttl = 64;  // RFC 1700 / common practice
inline constexpr uint16_t flag_dont_fragment = 0x4000;
inline constexpr uint16_t flag_more_fragments = 0x2000;
inline constexpr uint16_t fragment_offset_mask = 0x1fff;  // in 8-byte units
inline constexpr uint32_t fragment_unit = 8;

// What upper layers learn about a received datagram; data() of the packet
// they get is the IP payload and the header_len bytes before it the header.
struct Header {
  ::net::ip4::Addr src, dst;
  uint8_t protocol = 0;
  uint8_t ttl = 0;
  uint32_t header_len = header_min;
  bool to_broadcast = false;  // limited or directed broadcast: never answered with errors
  bool reassembled = false;
};

}  // namespace keel::net::ip4
