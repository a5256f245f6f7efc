#pragma once
// A flow's tuple as connection tracking and NAT key it: addresses, ports (or an ICMP query's id
// and type) and protocol. Every flow has two: the original direction's, as its first packet
// looked before any translation, and the reply direction's, as replies look on the wire after
// translation (Linux's tuplehash[ORIGINAL] and tuplehash[REPLY]).
#include <cstdint>

#include "keel/firewall/packet.hpp"

namespace keel::firewall {

struct FlowKey {
  uint32_t src = 0;
  uint32_t dst = 0;
  uint16_t sport = 0;  // TCP/UDP source port; ICMP queries: the identifier
  uint16_t dport = 0;  // TCP/UDP destination port; ICMP queries: the message type
  uint8_t proto = 0;
  uint8_t pad[3]{};
  bool operator==(const FlowKey&) const = default;
};
static_assert(sizeof(FlowKey) == 16);

inline constexpr uint8_t kIcmpEchoReply = 0, kIcmpEcho = 8, kIcmpTimestamp = 13,
                         kIcmpTimestampReply = 14, kIcmpInfoRequest = 15, kIcmpInfoReply = 16,
                         kIcmpAddressMask = 17, kIcmpAddressMaskReply = 18;

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
  if (k.proto == kProtoIcmp) {
    r.sport = k.sport;
    int reply = icmp_reply_type(static_cast<uint8_t>(k.dport));
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
