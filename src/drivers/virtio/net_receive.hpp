// What the device says in front of a received frame (virtio 1.1, 5.1.6.4),
// checked before the stack believes it: the device is not trusted. A frame
// whose header is wrong is dropped and counted by the driver.
#pragma once
#include <cstdint>
#include <net/packet.hpp>

#include "net_header.hpp"

namespace keel::drivers::virtio {

// The largest frame a device may hand over: Ethernet with a VLAN tag, an
// IPv6 header and the largest payload its length field holds (RFC 8200 §3;
// an IPv4 datagram is shorter, RFC 791 §3.1). A coalesced TCP segment is at
// most this long: no jumbograms.
inline constexpr uint32_t max_received_frame = 14 + 4 + 40 + 65535;

// The smallest segment size a coalesced frame may claim: Linux's floor on a
// peer's MSS (TCP_MIN_SND_MSS). Smaller would make a router cut one frame
// into thousands.
inline constexpr uint16_t min_gso_size = 48;

enum class ReceivedHeader {
  ok,
  bad_checksum,      // NEEDS_CSUM with csum_start/offset outside the frame
  bad_segmentation,  // gso_type or gso_size the driver did not negotiate or cannot use
};

// Applies `header` (flags, gso_type, gso_size, csum_start, csum_offset) to
// `frame`, whose window is the frame (data() at the Ethernet header):
// DATA_VALID and NEEDS_CSUM make it Packet::checksum_verified, NEEDS_CSUM
// also checksum_partial (the field holds the pseudo-header sum), a TCPV4/6
// gso_type makes it Packet::segmentation_offload with gso_size, so a router
// can hand it to a device that segments or cut it itself. `features` are
// the negotiated ones: without GUEST_CSUM the flags are ignored (5.1.6.4:
// the device sets none), without GUEST_TSO4/6 a gso_type is refused. On an
// error the frame's flags are left cleared.
ReceivedHeader apply_received_header(const NetHeader& header, uint64_t features,
                                     net::Packet& frame);

}  // namespace keel::drivers::virtio
