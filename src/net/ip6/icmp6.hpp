// ICMPv6 (RFC 4443) for a host: echo replies, Neighbor Discovery messages
// handed to the arriving interface's Ndp (RFC 4861), errors about what we
// sent handed to the upper layer they quote (TCP and UDP: RFC 4443 §2.4 (d),
// RFC 8201),
// Packet Too Big about our datagrams and echo replies lowering the path MTU
// of the destination cache (RFC 8201), Redirects from the current first hop
// setting a better one there (RFC 4861 §8), and the errors the
// IPv6 and UDP layers send (parameter problem, port unreachable), rate
// limited with a token bucket (RFC 4443 §2.4 (f)) and never sent about
// ICMPv6 errors, to groups (but the exceptions of §2.4 (e.3)), or to an
// unspecified or group source.
#pragma once
#include <cstdint>
#include <net/counters.hpp>
#include <net/packet.hpp>
#include <net/routes.hpp>
#include <util/delegate.hpp>
#include <utility>
#include <vector>

#include "ip6.hpp"
#include "net/token_bucket.hpp"

namespace net {

struct StackParts;

// An ICMPv6 error about a packet we sent: `quoted` is its IPv6 header and
// what the error carried of the rest; the upper-layer header (8 bytes of it
// at least) is at `upper`.
struct Icmp6ErrorReport {
  uint8_t type = 0, code = 0;
  uint32_t rest = 0;  // the MTU of Packet Too Big, the pointer of parameter problem
  const uint8_t* quoted = nullptr;
  std::size_t quoted_len = 0;
  std::size_t upper = 0;
  ip6::Addr from;  // the error's source
};

class Icmp6 {
 public:
  // Token bucket for errors: bursts of 50, then 100 per second (as ICMPv4).
  static constexpr uint32_t error_burst = 50;
  static constexpr uint32_t errors_per_second = 100;
  // RFC 4443 §2.4 (c): an error quotes as much of the offending packet as
  // fits in the minimum MTU.
  static constexpr std::size_t error_packet_max = wire::ip6_min_mtu;

  using ErrorHandler = keel::delegate<void(const Icmp6ErrorReport&)>;

  explicit Icmp6(StackParts& parts);
  // Who hears errors about the packets of upper layer `next_header`.
  void set_error_handler(uint8_t next_header, ErrorHandler handler);

  void receive(const Ip6Received& info, PacketPtr message);
  // An error about the packet at `ip` (its IPv6 header and what follows,
  // `len` bytes as received) that arrived on `in`; `rest` is the second
  // word (the pointer of parameter problem). `even_to_multicast`: the
  // exceptions of §2.4 (e.3).
  void send_error(uint8_t type, uint8_t code, uint32_t rest, const uint8_t* ip, std::size_t len,
                  InterfaceId in, bool even_to_multicast = false);

 private:
  bool error_allowed(const uint8_t* ip, std::size_t len, bool even_to_multicast);
  void echo_reply(const Ip6Received& info, const uint8_t* request, std::size_t len);
  // The packet an error quotes: its IPv6 header at `ip`, `len` bytes, the
  // upper-layer header (`next`) at `upper`.
  struct Quote {
    const uint8_t* ip = nullptr;
    std::size_t len = 0, upper = 0;
    uint8_t next = 0;
  };
  bool quote_of(const uint8_t* message, std::size_t len, Quote& q) const;
  void report_error(const uint8_t* message, std::size_t len, const ip6::Addr& from);
  void packet_too_big(const uint8_t* message, std::size_t len, const ip6::Addr& from);
  // redirect.cpp: a Redirect (RFC 4861 §8), hop limit and code checked.
  void redirect(const Ip6Received& info, const uint8_t* message, std::size_t len);

  StackParts& parts_;
  Icmp6Counters& counters_;
  TokenBucket<error_burst, errors_per_second> error_tokens_;
  std::vector<std::pair<uint8_t, ErrorHandler>> error_handlers_;
};

}  // namespace net
