// The virtio-net header (virtio 1.1, 5.1.6; linux/virtio_net.h) and what it
// means for a packet, both ways. Two NICs speak it: the virtio-net driver
// in an image (src/drivers/virtio/) and the Linux process's TAP device
// opened with IFF_VNET_HDR (src/platform/linux/tap.cpp), whose kernel
// writes and reads the very same header in front of every frame, as it
// does for QEMU. What the header says is checked here once for both: the
// device (or the host kernel) is not trusted (decision 0093).
#pragma once
#include <cstdint>
#include <net/packet.hpp>

namespace net::virtio_net {

// 5.1.6: in front of every frame, both directions.
struct Header {
  static constexpr uint8_t flag_needs_csum = 1;
  static constexpr uint8_t flag_data_valid = 2;
  static constexpr uint8_t gso_none = 0;
  static constexpr uint8_t gso_tcpv4 = 1;
  static constexpr uint8_t gso_tcpv6 = 4;
  static constexpr uint8_t gso_ecn = 0x80;  // only with GUEST_ECN, which we do not take
  uint8_t flags;
  uint8_t gso_type;
  uint16_t hdr_len;
  uint16_t gso_size;
  uint16_t csum_start;
  uint16_t csum_offset;
  uint16_t num_buffers;  // VERSION_1 or MRG_RXBUF only: buffers the frame spans (5.1.6.4)
};
static_assert(sizeof(Header) == 12);
// Legacy devices without MRG_RXBUF (and a TAP's default): no num_buffers (5.1.6.1).
inline constexpr uint32_t legacy_header_size = 10;

// The largest frame a device may hand over: Ethernet with a VLAN tag, an
// IPv6 header and the largest payload its length field holds (RFC 8200 §3;
// an IPv4 datagram is shorter, RFC 791 §3.1). A coalesced TCP segment is at
// most this long: no jumbograms.
inline constexpr uint32_t max_received_frame = 14 + 4 + 40 + 65535;

// The smallest segment size a coalesced frame may claim: Linux's floor on a
// peer's MSS (TCP_MIN_SND_MSS). Smaller would make a router cut one frame
// into thousands.
inline constexpr uint16_t min_gso_size = 48;

// What was agreed with the other side, for one direction. Receiving: what
// we told the device we take (virtio GUEST_CSUM, GUEST_TSO4/6; a TAP's
// TUN_F_CSUM, TUN_F_TSO4/6). Transmitting: what the device takes (virtio
// CSUM, HOST_TSO4/6; a TAP with IFF_VNET_HDR takes all three).
struct Offloads {
  bool checksum = false;
  bool tso4 = false;
  bool tso6 = false;
};

enum class ReceivedHeader {
  ok,
  bad_checksum,      // NEEDS_CSUM with csum_start/offset outside the frame
  bad_segmentation,  // gso_type or gso_size not agreed on or not usable
};

// Applies `header` (flags, gso_type, gso_size, csum_start, csum_offset) to
// `frame`, whose window is the frame (data() at the Ethernet header):
// DATA_VALID and NEEDS_CSUM make it Packet::checksum_verified, NEEDS_CSUM
// also checksum_partial (the field holds the pseudo-header sum), a TCPV4/6
// gso_type makes it Packet::segmentation_offload with gso_size, so a router
// can hand it to a device that segments or cut it itself. Without
// `taken.checksum` the flags are ignored (5.1.6.4: the device sets none),
// a gso_type not taken is refused. On an error the frame's flags are left
// cleared.
ReceivedHeader apply_received_header(const Header& header, Offloads taken, Packet& frame);

enum class TransmitHeader {
  ok,
  software_checksum,  // the device takes no partial checksum: completed here
  bad_segmentation,   // a segmentation_offload frame the device cannot take: drop it
};

// The header for sending `frame` (data() at the Ethernet header) to a
// device that takes `device`: NEEDS_CSUM with the packet's csum_start and
// csum_offset for a partial checksum (5.1.6.2), or the checksum completed
// in software when the device takes none; for a segmentation_offload frame
// also gso_type (by the Ethertype), gso_size and hdr_len, the bytes in front
// of the TCP payload that every segment repeats.
TransmitHeader transmit_header(Packet& frame, Offloads device, Header& header);

}  // namespace net::virtio_net
