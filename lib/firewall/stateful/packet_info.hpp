#pragma once
// One IPv4 or IPv6 packet read once for everything the stateful firewall asks of it: the
// classifier's fields, the flow tuple, TCP sequence space, and for ICMP and ICMPv6 errors the
// tuple of the packet they quote. Reading never trusts a length it has not checked against the
// bytes at hand; IPv6 extension headers are walked with the stack's limit.
#include <cstddef>
#include <cstdint>

#include "keel/firewall/flow.hpp"
#include "keel/firewall/packet.hpp"

namespace keel::firewall {

// Why a packet cannot be tracked (conntrack calls it invalid, as Linux's does).
enum class Malformed : uint8_t {
  none,
  truncated_l4,    // the transport header does not fit
  bad_tcp_offset,  // TCP data offset under 5 words or past the datagram
  bad_udp_length,  // UDP length under 8 or past the datagram
  fragment,        // a fragment (reassembly is off or failed): no ports to track
};

struct PacketInfo {
  Packet fields;  // what rules match (ct_state, iif and oif set by the caller)
  FlowKey key;    // this packet's flow tuple
  Malformed malformed = Malformed::none;
  uint32_t header_len = 0;  // IPv4 header bytes; IPv6: the header and its extension headers
  uint32_t l4_len = 0;      // bytes from the transport header to the end of the datagram
  // TCP
  uint32_t seq = 0, ack = 0;
  uint16_t window = 0;
  uint32_t tcp_header_len = 0;
  // ICMP
  uint16_t icmp_id = 0;
  bool icmp_error = false;    // destination unreachable, source quench, redirect, time exceeded,
                              // parameter problem (RFC 792): they quote a packet
  bool inner_ok = false;      // the quoted packet's tuple could be read
  FlowKey inner;              // the quoted packet's tuple, as it travelled
  uint32_t inner_offset = 0;  // the quoted IPv4 header, from the start of the outer one
};

// Reads `len` bytes of an IPv4 or IPv6 datagram whose header the stack has checked already
// (version, lengths, IPv4's header checksum). Returns false only when the IP header itself, or
// an IPv6 extension header chain, is unusable (longer than the stack walks, truncated).
bool read_packet(const uint8_t* ip, size_t len, PacketInfo& out);

// Whether an ICMPv6 type is an error that quotes the packet it is about (RFC 4443 section 2.1:
// types 0-127; 1-4 are defined).
constexpr bool is_icmp6_error(uint8_t type) { return type < 128; }

// Whether an ICMP type is an error that quotes the datagram it is about (RFC 792, RFC 1812).
constexpr bool is_icmp_error(uint8_t type) {
  return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

}  // namespace keel::firewall
