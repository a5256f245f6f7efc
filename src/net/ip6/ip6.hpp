// IPv6 for the host stack (RFC 8200): the input path (header checks, the
// extension-header walk with limits, local delivery; no forwarding) and the
// output path (on-link prefix or gateway, no source fragmentation). The
// first slice of issue 22: docs/net/ipv6.md says what is there and what is
// not (hooks, reassembly, forwarding, SLAAC).
#pragma once
#include <array>
#include <cstdint>
#include <net/address.hpp>
#include <net/packet.hpp>
#include <net/routes.hpp>
#include <net/status.hpp>
#include <util/delegate.hpp>
#include <utility>
#include <vector>

#include "net/link/link.hpp"
#include "net/wire/ip6.hpp"

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

  explicit Ip6(StackParts& parts);

  // From interface `in`: data() at the IPv6 header.
  void receive(InterfaceId in, PacketPtr packet, LinkCast cast);
  void set_protocol(uint8_t next_header, Upper handler);

  // The path to `destination`: through `via` if given, else the interface
  // whose prefix holds it (link-local and multicast: the source's
  // interface, or the first), else one with a gateway; from `source` if
  // given, else the interface's address of the destination's scope.
  Result<Ip6Path> route(const ip6::Addr& destination, const ip6::Addr& source = {},
                        InterfaceId via = no_interface) const;
  // Sends `payload` (data() at the upper-layer header) along `path`.
  Status send(const Ip6Path& path, const ip6::Addr& destination, uint8_t next_header,
              PacketPtr payload, uint8_t hop_limit = wire::ip6_default_hop_limit);

  // Whether `a` is a unicast address of one of our interfaces.
  bool is_local_address(const ip6::Addr& a) const { return owner(a) != no_interface; }
  // The interface holding unicast address `a`, or no_interface.
  InterfaceId owner(const ip6::Addr& a) const;

  void poll(uint64_t now);
  uint64_t next_deadline() const { return loopback_.empty() ? UINT64_MAX : 0; }

 private:
  bool is_for_us(const ip6::Addr& dst, InterfaceId in) const;
  // Whether any hook is registered. Hooks see IPv4 only for now, so with a firewall on
  // them IPv6 is refused both ways instead of passing unseen (docs/net/ipv6.md).
  bool hooked() const;
  // extensions.cpp: walks the header chain; false when the packet was dropped.
  struct Chain {
    uint8_t next_header = 0;
    uint32_t offset = 0;          // of the upper-layer header
    uint32_t next_header_at = 6;  // where the field naming it lies (the pointer of errors)
  };
  bool walk_extensions(Packet& packet, InterfaceId in, bool to_multicast, Chain& chain);
  bool walk_options(Packet& packet, InterfaceId in, bool to_multicast, uint32_t at, uint32_t len);
  void parameter_problem(Packet& packet, InterfaceId in, uint8_t code, uint32_t pointer,
                         bool even_to_multicast = false);
  void deliver(InterfaceId in, PacketPtr packet, bool to_multicast);

  static constexpr uint8_t no_protocol = 0;
  StackParts& parts_;
  std::vector<Upper> uppers_{1};          // [0]: none
  std::array<uint8_t, 256> protocols_{};  // next header -> uppers_ index
  // Packets this host sent to one of its own addresses, delivered on the
  // next poll (not from inside the sender's call).
  std::vector<std::pair<InterfaceId, PacketPtr>> loopback_;
};

}  // namespace net
