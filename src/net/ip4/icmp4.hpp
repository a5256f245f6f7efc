// ICMPv4 (RFC 792, RFC 1122 §3.2.2, RFC 1812 §4.3): echo replies, and the
// errors a host or router sends (destination unreachable, time exceeded,
// fragmentation needed). Errors are rate limited with a token bucket (RFC
// 1812 §4.3.2.8) and never sent about ICMP errors, broadcasts or multicasts,
// non-initial fragments, or datagrams from broadcast/zero sources.
#pragma once
#include <cstdint>

#include <net/counters.hpp>
#include <net/packet.hpp>
#include <net/routes.hpp>

#include "ip4.hpp"
#include "net/wire/icmp4.hpp"

namespace net {

struct StackParts;

class Icmp4 {
 public:
  // Token bucket for errors: bursts of 50, then 100 per second.
  static constexpr uint32_t error_burst = 50;
  static constexpr uint32_t errors_per_second = 100;

  explicit Icmp4(StackParts& parts);

  void receive(const Ip4Received& info, PacketPtr message);
  // An error about the datagram at `ip` (its IPv4 header and what follows,
  // `len` bytes as received) that arrived on `in`; `rest` is the header's
  // second word (the next-hop MTU of fragmentation needed).
  void send_error(uint8_t type, uint8_t code, const uint8_t* ip, std::size_t len,
                  InterfaceId in = no_interface, uint32_t rest = 0);

 private:
  bool error_allowed(const uint8_t* ip, std::size_t len);
  bool take_token(uint64_t now);
  void count_sent(uint8_t type, uint8_t code);

  StackParts& parts_;
  Icmp4Counters& counters_;
  uint32_t tokens_ = error_burst;
  uint64_t refilled_ns_ = 0;
};

}  // namespace net
