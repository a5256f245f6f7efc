// The virtio-net header both NICs speak (src/net/link/virtio_net_header.hpp):
// the virtio driver and the Linux process's TAP with IFF_VNET_HDR. Header to
// packet metadata and back, for what each side agreed to take. The driver's
// own tests (src/drivers/test/net_receive_test.cpp) run it behind a device.
#include "net/link/virtio_net_header.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "net/wire/checksum.hpp"

namespace {

using net::Packet;
using namespace net::virtio_net;

constexpr uint16_t ethernet_header = 14, ip4_header = 20, ip6_header = 40;
constexpr uint16_t tcp_checksum_field = 16;  // RFC 9293 §3.1

// Ethernet + IPv4 (or IPv6) + TCP with a 32-byte header (timestamps) and
// `payload` bytes. Only what the header code reads is filled in.
std::vector<uint8_t> tcp_frame(bool v6, uint32_t payload) {
  uint16_t ip = v6 ? ip6_header : ip4_header;
  std::vector<uint8_t> f(ethernet_header + ip + 32 + payload);
  f[12] = v6 ? 0x86 : 0x08;
  f[13] = v6 ? 0xdd : 0x00;
  f[ethernet_header] = v6 ? 0x60 : 0x45;
  f[ethernet_header + ip + 12] = 8 << 4;  // data offset: 8 words
  return f;
}

// A frame's bytes and a packet whose window is all of them.
struct Frame {
  std::vector<uint8_t> bytes;
  Packet packet;
  explicit Frame(std::vector<uint8_t> b)
      : bytes(std::move(b)), packet(bytes.data(), uint32_t(bytes.size()), nullptr) {
    packet.set_window(0, uint32_t(bytes.size()));
  }
};

Header coalesced(uint8_t type, uint16_t tcp_at, uint16_t gso_size) {
  Header h{};
  h.flags = Header::flag_needs_csum;
  h.gso_type = type;
  h.gso_size = gso_size;
  h.csum_start = tcp_at;
  h.csum_offset = tcp_checksum_field;
  return h;
}

constexpr Offloads everything{.checksum = true, .tso4 = true, .tso6 = true};

TEST(VirtioNetHeader, CoalescedSegmentsBecomeSegmentationOffloadPackets) {
  for (bool v6 : {false, true}) {
    Frame f(tcp_frame(v6, 20000));
    Packet& p = f.packet;
    uint16_t tcp_at = ethernet_header + (v6 ? ip6_header : ip4_header);
    Header h = coalesced(v6 ? Header::gso_tcpv6 : Header::gso_tcpv4, tcp_at, 1448);
    EXPECT_EQ(apply_received_header(h, everything, p), ReceivedHeader::ok);
    EXPECT_EQ(p.flags, uint32_t(Packet::checksum_verified | Packet::checksum_partial |
                                Packet::segmentation_offload));
    EXPECT_EQ(p.gso_size, 1448);
    EXPECT_EQ(p.csum_start, tcp_at);
    EXPECT_EQ(p.csum_offset, tcp_checksum_field);
  }
}

TEST(VirtioNetHeader, WhatWasNotTakenIsRefusedOrIgnored) {
  Frame f(tcp_frame(false, 3000));
  Packet& p = f.packet;
  Header h = coalesced(Header::gso_tcpv4, ethernet_header + ip4_header, 1448);
  // tso=off: the TAP asked for checksums only.
  EXPECT_EQ(apply_received_header(h, {.checksum = true, .tso4 = false, .tso6 = false}, p),
            ReceivedHeader::bad_segmentation);
  EXPECT_EQ(p.flags, 0u);
  // IPv6's kind on an IPv4 frame, or IPv4's when only IPv6 was taken.
  h.gso_type = Header::gso_tcpv6;
  EXPECT_EQ(apply_received_header(h, everything, p), ReceivedHeader::bad_segmentation);
  h.gso_type = Header::gso_tcpv4;
  EXPECT_EQ(apply_received_header(h, {.checksum = true, .tso4 = false, .tso6 = true}, p),
            ReceivedHeader::bad_segmentation);
  // Too small a segment size, ECN, no NEEDS_CSUM, the checksum not TCP's.
  Header tiny = h, ecn = h, whole = h, udp = h;
  tiny.gso_size = min_gso_size - 1;
  ecn.gso_type |= Header::gso_ecn;
  whole.flags = Header::flag_data_valid;
  udp.csum_offset = 6;
  for (const Header& bad : {tiny, ecn, whole, udp})
    EXPECT_EQ(apply_received_header(bad, everything, p), ReceivedHeader::bad_segmentation);
  // A partial checksum whose field lies past the frame.
  Header outside{};
  outside.flags = Header::flag_needs_csum;
  outside.csum_start = uint16_t(f.bytes.size() - 1);
  outside.csum_offset = 0;
  EXPECT_EQ(apply_received_header(outside, everything, p), ReceivedHeader::bad_checksum);
  EXPECT_EQ(p.flags, 0u);
  // Without checksum offload the flags mean nothing (5.1.6.4).
  Header valid{};
  valid.flags = Header::flag_data_valid;
  EXPECT_EQ(apply_received_header(valid, {}, p), ReceivedHeader::ok);
  EXPECT_EQ(p.flags, 0u);
  EXPECT_EQ(apply_received_header(valid, everything, p), ReceivedHeader::ok);
  EXPECT_EQ(p.flags, uint32_t(Packet::checksum_verified));
}

TEST(VirtioNetHeader, TsoSegmentsGetKindSizeAndHeaderLength) {
  for (bool v6 : {false, true}) {
    Frame f(tcp_frame(v6, 30000));
    Packet& p = f.packet;
    uint16_t tcp_at = ethernet_header + (v6 ? ip6_header : ip4_header);
    p.flags = Packet::checksum_partial | Packet::segmentation_offload;
    p.csum_start = tcp_at;
    p.csum_offset = tcp_checksum_field;
    p.gso_size = 1436;
    Header h;
    EXPECT_EQ(transmit_header(p, everything, h), TransmitHeader::ok);
    EXPECT_EQ(h.flags, Header::flag_needs_csum);
    EXPECT_EQ(h.gso_type, v6 ? Header::gso_tcpv6 : Header::gso_tcpv4);
    EXPECT_EQ(h.gso_size, 1436);
    EXPECT_EQ(h.hdr_len, tcp_at + 32);  // every segment repeats the options
    EXPECT_EQ(h.csum_start, tcp_at);
    EXPECT_EQ(h.csum_offset, tcp_checksum_field);
    // A device that does not cut this family: the frame must not go.
    Offloads other = v6 ? Offloads{.checksum = true, .tso4 = true, .tso6 = false}
                        : Offloads{.checksum = true, .tso4 = false, .tso6 = true};
    EXPECT_EQ(transmit_header(p, other, h), TransmitHeader::bad_segmentation);
  }
}

TEST(VirtioNetHeader, PartialChecksumsAreOffloadedOrCompleted) {
  // A UDP datagram's partial checksum (the pseudo-header sum in the field).
  const uint16_t udp_at = ethernet_header + ip4_header, udp_checksum_field = 6;
  Frame f(std::vector<uint8_t>(udp_at + 8 + 5));
  std::vector<uint8_t>& bytes = f.bytes;
  bytes[12] = 0x08;
  std::memcpy(&bytes[udp_at + 8], "hello", 5);
  Packet& p = f.packet;
  p.flags = Packet::checksum_partial;
  p.csum_start = udp_at;
  p.csum_offset = udp_checksum_field;
  Header h;
  EXPECT_EQ(transmit_header(p, everything, h), TransmitHeader::ok);
  EXPECT_EQ(h.flags, Header::flag_needs_csum);
  EXPECT_EQ(h.gso_type, Header::gso_none);
  EXPECT_EQ(h.csum_start, udp_at);
  EXPECT_EQ(h.csum_offset, udp_checksum_field);
  EXPECT_EQ(p.flags, uint32_t(Packet::checksum_partial));  // left to the device
  // A device without checksum offload: completed here, the header says nothing.
  EXPECT_EQ(transmit_header(p, {}, h), TransmitHeader::software_checksum);
  EXPECT_EQ(h.flags, 0);
  EXPECT_EQ(p.flags, 0u);
  // The field was the pseudo-header sum (0 here): the datagram now sums to all ones.
  EXPECT_EQ(net::wire::checksum(&bytes[udp_at], bytes.size() - udp_at), 0);
  // Nothing to offload: an empty header.
  EXPECT_EQ(transmit_header(p, everything, h), TransmitHeader::ok);
  EXPECT_EQ(h.flags, 0);
}

}  // namespace
