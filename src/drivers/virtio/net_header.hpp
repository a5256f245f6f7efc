// virtio-net's wire structures and feature bits (virtio 1.1, 5.1).
#pragma once
#include <cstdint>

#include "net/link/virtio_net_header.hpp"

namespace keel::drivers::virtio {

namespace net_feature {                            // 5.1.3
inline constexpr uint64_t csum = 1ull << 0;        // device takes partial checksums
inline constexpr uint64_t guest_csum = 1ull << 1;  // driver takes partial/validated ones
inline constexpr uint64_t mac = 1ull << 5;
inline constexpr uint64_t guest_tso4 = 1ull
                                       << 7;  // driver takes coalesced TCP/IPv4 (needs guest_csum)
inline constexpr uint64_t guest_tso6 = 1ull
                                       << 8;  // driver takes coalesced TCP/IPv6 (needs guest_csum)
inline constexpr uint64_t host_tso4 = 1ull << 11;  // device segments TCP/IPv4 (needs csum)
inline constexpr uint64_t host_tso6 = 1ull << 12;  // device segments TCP/IPv6 (needs csum)
inline constexpr uint64_t mrg_rxbuf = 1ull << 15;  // a received frame may span buffers
}  // namespace net_feature

inline constexpr uint16_t receive_queue = 0;  // 5.1.2: receiveq1, transmitq1
inline constexpr uint16_t transmit_queue = 1;
inline constexpr uint32_t net_config_mac = 0;  // 5.1.4

// 5.1.6: in front of every frame, both directions; shared with the Linux
// process's TAP (src/net/link/virtio_net_header.hpp).
using NetHeader = ::net::virtio_net::Header;
using ::net::virtio_net::legacy_header_size;

}  // namespace keel::drivers::virtio
