// The virtio-net header, received and sent (virtio_net_header.hpp).
#include "virtio_net_header.hpp"

namespace net::virtio_net {
namespace {

constexpr uint32_t ethernet_header = 14;   // IEEE 802.3: two MACs and the Ethertype
constexpr uint32_t ethertype_offset = 12;  // after the two MACs
constexpr uint16_t ethertype_ip4 = 0x0800, ethertype_ip6 = 0x86dd;
constexpr uint32_t ip4_header_min = 20, ip6_header_size = 40;  // RFC 791, RFC 8200
constexpr uint32_t tcp_checksum_offset = 16;                   // RFC 9293 §3.1
constexpr uint32_t tcp_data_offset = 12;  // RFC 9293 §3.1: the header length in words
constexpr uint32_t tcp_header_min = 20;

uint16_t ethertype(const Packet& frame) {
  if (frame.size() < ethernet_header) return 0;
  return uint16_t(frame.data()[ethertype_offset] << 8 | frame.data()[ethertype_offset + 1]);
}

ReceivedHeader refuse(Packet& frame, ReceivedHeader why) {
  frame.flags = 0;
  frame.gso_size = 0;
  return why;
}

// 5.1.6.2: a segment the device cuts up: its kind (by the Ethertype), the
// payload per segment, and hdr_len (Ethernet + IP + TCP with options).
// False when the device does not take that kind or the headers are not whole.
bool segmentation_header(const Packet& frame, Offloads device, Header& header) {
  uint32_t tcp = header.csum_start;
  if (!(header.flags & Header::flag_needs_csum) || frame.gso_size == 0 ||
      tcp + tcp_header_min > frame.size())
    return false;
  uint16_t type = ethertype(frame);
  if (type == ethertype_ip4 && device.tso4) {
    header.gso_type = Header::gso_tcpv4;
  } else if (type == ethertype_ip6 && device.tso6) {
    header.gso_type = Header::gso_tcpv6;
  } else {
    return false;
  }
  uint32_t hdr_len = tcp + (frame.data()[tcp + tcp_data_offset] >> 4) * 4u;
  if (hdr_len > frame.size()) return false;
  header.hdr_len = uint16_t(hdr_len);
  header.gso_size = frame.gso_size;
  return true;
}

}  // namespace

ReceivedHeader apply_received_header(const Header& header, Offloads taken, Packet& frame) {
  frame.flags = 0;
  frame.gso_size = 0;
  const uint32_t size = frame.size();
  if (header.gso_type != Header::gso_none) {
    // A coalesced segment: only of a kind we took, always with a partial
    // checksum (5.1.6.4.1: the device MUST set NEEDS_CSUM), never with ECN
    // (we do not take GUEST_ECN).
    if (!taken.checksum || !(header.flags & Header::flag_needs_csum) ||
        header.gso_size < min_gso_size)
      return refuse(frame, ReceivedHeader::bad_segmentation);
    uint16_t type = ethertype(frame);
    bool v4 = header.gso_type == Header::gso_tcpv4 && taken.tso4 && type == ethertype_ip4;
    bool v6 = header.gso_type == Header::gso_tcpv6 && taken.tso6 && type == ethertype_ip6;
    uint32_t ip_min = v4 ? ip4_header_min : ip6_header_size;
    if ((!v4 && !v6) || header.csum_offset != tcp_checksum_offset ||
        header.csum_start < ethernet_header + ip_min ||
        uint32_t(header.csum_start) + tcp_header_min > size)
      return refuse(frame, ReceivedHeader::bad_segmentation);
    frame.flags |= Packet::segmentation_offload;
    frame.gso_size = header.gso_size;
  }
  if (!taken.checksum) return ReceivedHeader::ok;
  if (header.flags & Header::flag_data_valid) frame.flags |= Packet::checksum_verified;
  if (header.flags & Header::flag_needs_csum) {
    // 5.1.6.4.1: the device checked everything before csum_start and left
    // the pseudo-header sum in the field; summing from csum_start to the end
    // completes it. A local sender's frame: nothing was corrupted on a wire.
    if (uint32_t(header.csum_start) + header.csum_offset + 2 > size)
      return refuse(frame, ReceivedHeader::bad_checksum);
    frame.flags |= Packet::checksum_verified | Packet::checksum_partial;
    frame.csum_start = header.csum_start;
    frame.csum_offset = header.csum_offset;
  }
  return ReceivedHeader::ok;
}

TransmitHeader transmit_header(Packet& frame, Offloads device, Header& header) {
  header = Header{};
  TransmitHeader result = TransmitHeader::ok;
  if (frame.flags & Packet::checksum_partial) {
    if (device.checksum) {
      header.flags = Header::flag_needs_csum;
      header.csum_start = frame.csum_start;
      header.csum_offset = frame.csum_offset;
    } else {
      complete_partial_checksum(frame);
      result = TransmitHeader::software_checksum;
    }
  }
  if ((frame.flags & Packet::segmentation_offload) && !segmentation_header(frame, device, header))
    return TransmitHeader::bad_segmentation;
  return result;
}

}  // namespace net::virtio_net
