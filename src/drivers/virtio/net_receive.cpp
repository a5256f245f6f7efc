// Checking a received frame's virtio-net header (net_receive.hpp).
#include "net_receive.hpp"

namespace keel::drivers::virtio {
namespace {

constexpr uint32_t ethernet_header = 14;   // IEEE 802.3: two MACs and the Ethertype
constexpr uint32_t ethertype_offset = 12;  // after the two MACs
constexpr uint16_t ethertype_ip4 = 0x0800, ethertype_ip6 = 0x86dd;
constexpr uint32_t ip4_header_min = 20, ip6_header_size = 40;  // RFC 791, RFC 8200
constexpr uint32_t tcp_checksum_offset = 16;                   // RFC 9293 §3.1
constexpr uint32_t tcp_header_min = 20;

ReceivedHeader refuse(net::Packet& frame, ReceivedHeader why) {
  frame.flags = 0;
  frame.gso_size = 0;
  return why;
}

}  // namespace

ReceivedHeader apply_received_header(const NetHeader& header, uint64_t features,
                                     net::Packet& frame) {
  frame.flags = 0;
  frame.gso_size = 0;
  const uint32_t size = frame.size();
  if (header.gso_type != NetHeader::gso_none) {
    // A coalesced segment: only of a kind we took, always with a partial
    // checksum (5.1.6.4.1: the device MUST set NEEDS_CSUM), never with ECN
    // (we do not take GUEST_ECN).
    if (!(features & net_feature::guest_csum) || !(header.flags & NetHeader::flag_needs_csum) ||
        header.gso_size < min_gso_size)
      return refuse(frame, ReceivedHeader::bad_segmentation);
    uint16_t type =
        size >= ethernet_header
            ? uint16_t(frame.data()[ethertype_offset] << 8 | frame.data()[ethertype_offset + 1])
            : 0;
    bool v4 = header.gso_type == NetHeader::gso_tcpv4 && (features & net_feature::guest_tso4) &&
              type == ethertype_ip4;
    bool v6 = header.gso_type == NetHeader::gso_tcpv6 && (features & net_feature::guest_tso6) &&
              type == ethertype_ip6;
    uint32_t ip_min = v4 ? ip4_header_min : ip6_header_size;
    if ((!v4 && !v6) || header.csum_offset != tcp_checksum_offset ||
        header.csum_start < ethernet_header + ip_min ||
        uint32_t(header.csum_start) + tcp_header_min > size)
      return refuse(frame, ReceivedHeader::bad_segmentation);
    frame.flags |= net::Packet::segmentation_offload;
    frame.gso_size = header.gso_size;
  }
  if (!(features & net_feature::guest_csum)) return ReceivedHeader::ok;
  if (header.flags & NetHeader::flag_data_valid) frame.flags |= net::Packet::checksum_verified;
  if (header.flags & NetHeader::flag_needs_csum) {
    // 5.1.6.4.1: the device checked everything before csum_start and left
    // the pseudo-header sum in the field; summing from csum_start to the end
    // completes it. A local sender's frame: nothing was corrupted on a wire.
    if (uint32_t(header.csum_start) + header.csum_offset + 2 > size)
      return refuse(frame, ReceivedHeader::bad_checksum);
    frame.flags |= net::Packet::checksum_verified | net::Packet::checksum_partial;
    frame.csum_start = header.csum_start;
    frame.csum_offset = header.csum_offset;
  }
  return ReceivedHeader::ok;
}

}  // namespace keel::drivers::virtio
