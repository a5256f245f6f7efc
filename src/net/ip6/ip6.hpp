// IPv6 for the host stack (RFC 8200): the input path (header checks, the
// extension-header walk with limits, fragment reassembly, local delivery),
// the forward path (hop limit, routes, Packet Too Big: forward.cpp) and the
// output path (routes, source fragmentation), each passing the hook points
// of api/net/hooks.hpp as IPv4's do. docs/net/ipv6.md says what is there.
#pragma once
#include <array>
#include <cstdint>
#include <net/address.hpp>
#include <net/config.hpp>
#include <net/hooks.hpp>
#include <net/packet.hpp>
#include <net/routes.hpp>
#include <net/status.hpp>
#include <util/delegate.hpp>
#include <utility>
#include <vector>

#include "destinations.hpp"
#include "net/fragments/reassembly.hpp"
#include "net/link/link.hpp"
#include "net/wire/ip6.hpp"
#include "util/siphash.hpp"

namespace net {

struct StackParts;

// What IPv6 tells upper layers about a packet for this host. data() of the
// packet they get is the upper-layer header; the header_len bytes in front
// of it are the IPv6 header and its extension headers (quoted in errors).
struct Ip6Received {
  wire::Ip6Repr header;
  uint32_t header_len = wire::ip6_header_size;
  InterfaceId in = no_interface;
  bool to_multicast = false;  // an IPv6 group, or an Ethernet group or broadcast frame
};

// Where a packet leaves: what routing chose.
struct Ip6Path {
  InterfaceId interface = no_interface;
  ip6::Addr source;    // ours, to send from
  ip6::Addr next_hop;  // a gateway, or the destination itself
};

class Ip6 {
 public:
  using Upper = keel::delegate<void(const Ip6Received&, PacketPtr payload)>;

  // RFC 8200 §4 sets no limit; RFC 9098 §4 and RFC 7045 let a host drop
  // chains it will not walk. Eight covers every sensible combination.
  static constexpr int max_extension_headers = 8;

  Ip6(StackParts& parts, const StackConfig& config);

  // From interface `in`: data() at the IPv6 header.
  void receive(InterfaceId in, PacketPtr packet, LinkCast cast);
  void set_protocol(uint8_t next_header, Upper handler);

  // The path to `destination`: through `via` if given, else the interface
  // whose prefix holds it (link-local and multicast: the source's
  // interface, or the first), else one with a gateway; from `source` if
  // given, else the interface's address of the destination's scope.
  Result<Ip6Path> route(const ip6::Addr& destination, const ip6::Addr& source = {},
                        InterfaceId via = no_interface) const;
  // Sends `payload` (data() at the upper-layer header) along `path`, in
  // fragments when it is larger than the path MTU (RFC 8200 §4.5); TCP is
  // never fragmented (it sizes its segments by the MSS): too_big.
  Status send(const Ip6Path& path, const ip6::Addr& destination, uint8_t next_header,
              PacketPtr payload, uint8_t hop_limit = wire::ip6_default_hop_limit);

  // Forwarding between interfaces (a router; RFC 8200 §3, RFC 4443): off for a host.
  void set_forwarding(bool on) {
    forwarding_ = on;
    if (on) destinations_.forget_redirects();  // RFC 4861 §8.2: a router takes none
  }
  bool forwarding() const { return forwarding_; }
  // Neighbor Discovery gave up on the next hop of `packet` (data() at its
  // IPv6 header): a forwarded one is answered with address unreachable
  // (RFC 4861 §7.2.2).
  void neighbour_unreachable(const Packet& packet);

  // Whether `a` is a unicast address of one of our interfaces.
  bool is_local_address(const ip6::Addr& a) const { return owner(a) != no_interface; }
  // The interface holding unicast address `a`, or no_interface.
  InterfaceId owner(const ip6::Addr& a) const;

  // What this host sends to `destination` through interface `out` fits in
  // this: the link's IPv6 MTU, lowered by a Packet Too Big (RFC 8201).
  uint32_t path_mtu(InterfaceId out, const ip6::Addr& destination) const;
  Destinations& destinations() { return destinations_; }

  void poll(uint64_t now);
  uint64_t next_deadline() const { return loopback_.empty() ? reassembly_.next_deadline() : 0; }
  Reassembly& reassembly() { return reassembly_; }

 private:
  bool is_for_us(const ip6::Addr& dst, InterfaceId in) const;
  // The route to a unicast, non-link-local `destination`: the longest of the
  // table's match and the interfaces' on-link prefixes, else a default
  // router (decision 0134). Fills interface, next hop and a preferred source.
  bool lookup(const ip6::Addr& destination, Ip6Path& path) const;
  // hooks.cpp: runs a hook point; false (counted) when a function dropped the packet.
  bool passes(Hook hook, Packet& packet, InterfaceId in, InterfaceId out);
  // forward.cpp
  void forward(InterfaceId in, PacketPtr packet, LinkCast cast);
  bool forwardable(InterfaceId in, Packet& packet, LinkCast cast);
  // output.cpp: the MTU this host's own packet must fit (TCP: the link's).
  uint32_t own_mtu(InterfaceId out, const ip6::Addr& destination, uint8_t next_header) const;
  // output.cpp: postrouting, then source fragmentation or the link.
  Status post_route(InterfaceId in, InterfaceId out, const ip6::Addr& next_hop, PacketPtr packet);
  // extensions.cpp: walks the header chain; false when the packet was dropped.
  struct Chain {
    uint8_t next_header = 0;
    uint32_t offset = 0;          // of the upper-layer header
    uint32_t next_header_at = 6;  // where the field naming it lies (the pointer of errors)
    uint32_t fragment_at = 0;     // a non-atomic Fragment header's offset: the walk stops there
  };
  bool walk_extensions(Packet& packet, InterfaceId in, bool to_multicast, Chain& chain);
  bool walk_options(Packet& packet, InterfaceId in, bool to_multicast, uint32_t at, uint32_t len);
  void parameter_problem(Packet& packet, InterfaceId in, uint8_t code, uint32_t pointer,
                         bool even_to_multicast = false);
  // `reassembled`: a datagram reassembly made, which may hold no further
  // non-atomic Fragment header (nested fragments are refused).
  void deliver(InterfaceId in, PacketPtr packet, bool to_multicast, bool reassembled = false);
  // fragments.cpp: the checks of RFC 8200 §4.5 that answer with ICMPv6, then
  // reassembly; the whole datagram, or nullptr.
  PacketPtr reassemble(InterfaceId in, PacketPtr packet, bool to_multicast, const Chain& chain);
  // fragments.cpp: `packet` (data() at its IPv6 header, payload over `mtu`)
  // in fragments of at most `mtu` bytes to `next_hop`.
  Status fragment(Link& link, const ip6::Addr& next_hop, PacketPtr packet, uint32_t mtu);
  uint32_t next_identification(const ip6::Addr& src, const ip6::Addr& dst);

  static constexpr uint8_t no_protocol = 0;
  StackParts& parts_;
  std::vector<Upper> uppers_{1};          // [0]: none
  std::array<uint8_t, 256> protocols_{};  // next header -> uppers_ index
  // Packets this host sent to one of its own addresses, delivered on the
  // next poll (not from inside the sender's call).
  std::vector<std::pair<InterfaceId, PacketPtr>> loopback_;
  Reassembly reassembly_;
  Destinations destinations_;
  bool forwarding_ = false;
  // Fragment identifications: a keyed hash of the addresses and a counter,
  // not predictable from outside (RFC 7739 §5.3); keyed on first use.
  bool identification_keyed_ = false;
  keel::util::SipKey identification_key_{};
  uint64_t identification_counter_ = 0;
};

}  // namespace net
