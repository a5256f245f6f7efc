// ICMPv4 (RFC 792, RFC 1122 §3.2.2, RFC 1812 §4.3): echo replies, and the
// errors a host or router sends (destination unreachable, time exceeded,
// fragmentation needed). Errors are rate limited with a token bucket (RFC
// 1812 §4.3.2.8) and never sent about ICMP errors, broadcasts or multicasts,
// non-initial fragments, or datagrams from broadcast/zero sources.
// Errors about datagrams this host sent (unreachable, fragmentation needed,
// time exceeded) go to the protocol of the quoted datagram (RFC 1122
// §3.2.2.1, RFC 1191, RFC 5927): TCP lowers its MSS or gives up a connect,
// UDP tells the socket that sent it.
#pragma once
#include <cstdint>
#include <net/counters.hpp>
#include <net/packet.hpp>
#include <net/routes.hpp>
#include <util/delegate.hpp>
#include <utility>
#include <vector>

#include "ip4.hpp"
#include "net/token_bucket.hpp"
#include "net/wire/icmp4.hpp"

namespace net {

struct StackParts;

// An error about one of our datagrams: its type and code, the second word
// (the next-hop MTU of fragmentation needed), and the quoted IPv4 header
// with at least the 8 bytes after it (checked: a whole header, version 4,
// from one of our addresses).
struct Icmp4ErrorReport {
  uint8_t type = 0, code = 0;
  uint32_t rest = 0;
  const uint8_t* quoted = nullptr;
  std::size_t quoted_len = 0;
  ip4::Addr from;  // the error's source
};

class Icmp4 {
 public:
  using ErrorHandler = keel::delegate<void(const Icmp4ErrorReport&)>;

  // Token bucket for errors: bursts of 50, then 100 per second.
  static constexpr uint32_t error_burst = 50;
  static constexpr uint32_t errors_per_second = 100;
  // RFC 1812 §4.3.2.3: an error quotes as much of the offending datagram as
  // fits in a 576-byte datagram (RFC 792's header and 8 bytes at least).
  static constexpr std::size_t error_datagram_max = 576;

  explicit Icmp4(StackParts& parts);

  void receive(const Ip4Received& info, PacketPtr message);
  // An error about the datagram at `ip` (its IPv4 header and what follows,
  // `len` bytes as received) that arrived on `in`; `rest` is the header's
  // second word (the next-hop MTU of fragmentation needed).
  void send_error(uint8_t type, uint8_t code, const uint8_t* ip, std::size_t len,
                  InterfaceId in = no_interface, uint32_t rest = 0);
  // Errors quoting a datagram of `protocol` go to `handler`.
  void set_error_handler(uint8_t protocol, ErrorHandler handler);

 private:
  bool error_allowed(const uint8_t* ip, std::size_t len);
  void report_error(const wire::Icmp4View<uint8_t>& message, ip4::Addr from);
  void count_sent(uint8_t type, uint8_t code);

  StackParts& parts_;
  Icmp4Counters& counters_;
  TokenBucket<error_burst, errors_per_second> error_tokens_;
  std::vector<std::pair<uint8_t, ErrorHandler>> error_handlers_;
};

}  // namespace net
