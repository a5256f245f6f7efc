#pragma once
// A flow's tuple as connection tracking and NAT key it: addresses, ports (or an ICMP query's id
// and type) and protocol. Every flow has two: the original direction's, as its first packet
// looked before any translation, and the reply direction's, as replies look on the wire after
// translation (Linux's tuplehash[ORIGINAL] and tuplehash[REPLY]).
#include <cstddef>
#include <cstdint>

#include "keel/firewall/packet.hpp"

namespace keel::firewall {

// IPv6 flows are tagged with their family and keep words 1-3 of each address after the IPv4
// part (src, dst: word 0), as Packet does; an IPv4 key's tail is zero and is not hashed.
struct FlowKey {
  uint32_t src = 0;
  uint32_t dst = 0;
  uint16_t sport = 0;  // TCP/UDP source port; ICMP queries: the identifier
  uint16_t dport = 0;  // TCP/UDP destination port; ICMP queries: the message type
  uint8_t proto = 0;
  uint8_t family = kFamilyIp4;
  uint8_t pad[2]{};
  uint32_t src6[3]{};  // IPv6: words 1-3 of the addresses
  uint32_t dst6[3]{};
  bool operator==(const FlowKey&) const = default;
};
static_assert(sizeof(FlowKey) == 40);
inline constexpr size_t kFlowKeyIp4Bytes = 16;  // what an IPv4 key holds (the rest is zero)

inline constexpr uint8_t kIcmpEchoReply = 0, kIcmpEcho = 8, kIcmpTimestamp = 13,
                         kIcmpTimestampReply = 14, kIcmpInfoRequest = 15, kIcmpInfoReply = 16,
                         kIcmpAddressMask = 17, kIcmpAddressMaskReply = 18;

inline constexpr uint8_t kIcmp6EchoRequest = 128, kIcmp6EchoReply = 129;

// The reply type of an ICMPv6 query (RFC 4443 section 4: echo), or -1.
constexpr int icmp6_reply_type(uint8_t type) {
  return type == kIcmp6EchoRequest ? kIcmp6EchoReply
         : type == kIcmp6EchoReply ? kIcmp6EchoRequest
                                   : -1;
}

// The reply type of an ICMP query type (RFC 792, RFC 950), or -1 when the type starts no flow.
constexpr int icmp_reply_type(uint8_t type) {
  switch (type) {
    case kIcmpEcho:
      return kIcmpEchoReply;
    case kIcmpTimestamp:
      return kIcmpTimestampReply;
    case kIcmpInfoRequest:
      return kIcmpInfoReply;
    case kIcmpAddressMask:
      return kIcmpAddressMaskReply;
    case kIcmpEchoReply:
      return kIcmpEcho;
    case kIcmpTimestampReply:
      return kIcmpTimestamp;
    case kIcmpInfoReply:
      return kIcmpInfoRequest;
    case kIcmpAddressMaskReply:
      return kIcmpAddressMask;
    default:
      return -1;
  }
}

// What the other direction of a flow looks like: addresses swapped, and ports swapped (TCP,
// UDP) or the query's type turned into its reply's (ICMP; the identifier stays).
constexpr FlowKey inverted(const FlowKey& k) {
  FlowKey r;
  r.src = k.dst;
  r.dst = k.src;
  r.proto = k.proto;
  r.family = k.family;
  for (int w = 0; w < 3; ++w) {
    r.src6[w] = k.dst6[w];
    r.dst6[w] = k.src6[w];
  }
  if (k.proto == kProtoIcmp || k.proto == kProtoIcmp6) {
    r.sport = k.sport;
    int reply = k.proto == kProtoIcmp6 ? icmp6_reply_type(static_cast<uint8_t>(k.dport))
                                       : icmp_reply_type(static_cast<uint8_t>(k.dport));
    r.dport = static_cast<uint16_t>(reply < 0 ? k.dport : reply);
  } else {
    r.sport = k.dport;
    r.dport = k.sport;
  }
  return r;
}

// Whether the protocol has ports (TCP, UDP) that NAT may change.
constexpr bool has_ports(uint8_t proto) { return proto == kProtoTcp || proto == kProtoUdp; }

}  // namespace keel::firewall
