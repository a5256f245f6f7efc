// IPv4 for the host stack (RFC 791; host requirements RFC 1122 §3.2.1;
// router requirements RFC 1812 §5): the input path (checks, prerouting,
// local delivery or forwarding, reassembly, input), the forward path (TTL,
// routes, MTU, forward) and the output path (routes, output, postrouting,
// fragmentation), each passing the hook points of api/net/hooks.hpp.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <net/config.hpp>
#include <net/hooks.hpp>
#include <net/packet.hpp>
#include <net/routes.hpp>
#include <net/status.hpp>
#include <util/delegate.hpp>
#include <utility>
#include <vector>

#include "net/fragments/reassembly.hpp"
#include "net/link/link.hpp"
#include "net/wire/ip4.hpp"

namespace net {

struct StackParts;

// What IPv4 tells upper layers about a datagram for this host. data() of
// the packet they get is the payload; the header_len bytes in front of it
// are the IPv4 header (quoted in ICMP errors).
struct Ip4Received {
  wire::Ip4Repr header;
  uint32_t header_len = wire::ip4_header_min;
  InterfaceId in = no_interface;
  bool to_broadcast = false;  // limited, directed or link broadcast: never answered with errors
  bool to_multicast = false;
};

// Where a datagram leaves: what routing chose.
struct Ip4Path {
  InterfaceId interface = no_interface;
  ip4::Addr source;    // ours, to send from
  ip4::Addr next_hop;  // a gateway, or the destination itself
};

struct Ip4SendOptions {
  uint8_t ttl = wire::ip4_default_ttl;
  uint8_t tos = 0;
  bool dont_fragment = false;
};

class Ip4 {
 public:
  using Upper = keel::delegate<void(const Ip4Received&, PacketPtr payload)>;

  Ip4(StackParts& parts, const StackConfig& config);

  // From interface `in`: data() at the IPv4 header.
  void receive(InterfaceId in, PacketPtr packet, LinkCast cast);
  void set_protocol(uint8_t protocol, Upper handler);

  // The path to `destination`: through `via` if given (it must be up),
  // else the routing table's choice; from `source` if given, else the
  // route's or the interface's address. A broadcast from an interface
  // without an address goes from 0.0.0.0 (a DHCP client's).
  Result<Ip4Path> route(ip4::Addr destination, ip4::Addr source = {},
                        InterfaceId via = no_interface) const;
  // Sends `payload` (data() at the transport header) along `path`.
  Status send(const Ip4Path& path, ip4::Addr destination, uint8_t protocol, PacketPtr payload,
              const Ip4SendOptions& options = {});

  // Whether `a` is the address of one of our interfaces.
  bool is_local_address(ip4::Addr a) const {
    return std::find(local_.begin(), local_.end(), a) != local_.end();
  }
  // Whether `a` is a broadcast (limited, or directed on one of our
  // subnets) or multicast address.
  bool is_group_address(ip4::Addr a) const {
    return a.is_broadcast() || a.is_multicast() ||
           std::find(broadcasts_.begin(), broadcasts_.end(), a) != broadcasts_.end();
  }
  // An interface's address changed: the sets above are rebuilt.
  void addresses_changed();

  void set_forwarding(bool on) { forwarding_ = on; }
  bool forwarding() const { return forwarding_; }
  void set_defragment_all(bool on) { defragment_all_ = on; }
  Reassembly& reassembly() { return reassembly_; }

  void poll(uint64_t now);
  uint64_t next_deadline() const;

 private:
  // Runs a hook point; false (counted) when a function dropped the packet.
  bool passes(Hook hook, Packet& packet, InterfaceId in, InterfaceId out) {
    return hooks_.empty(hook) || run_hook(hook, packet, in, out);
  }
  bool run_hook(Hook hook, Packet& packet, InterfaceId in, InterfaceId out);
  // input.cpp
  bool bad_source(ip4::Addr src, InterfaceId in) const;
  bool is_for_us(ip4::Addr dst, InterfaceId in, LinkCast cast) const;
  void local_input(InterfaceId in, PacketPtr packet, LinkCast cast);
  void deliver(InterfaceId in, PacketPtr packet, LinkCast cast);
  // forward.cpp
  void forward(InterfaceId in, PacketPtr packet, LinkCast cast);
  // output.cpp
  Status post_route(InterfaceId in, InterfaceId out, ip4::Addr next_hop, PacketPtr packet);
  Status fragment(Link& out, ip4::Addr next_hop, PacketPtr packet);
  void run_loopback();

  static constexpr uint8_t no_protocol = 0;
  StackParts& parts_;
  Hooks& hooks_;
  Reassembly reassembly_;
  std::vector<Upper> uppers_{1};               // [0]: none
  std::array<uint8_t, 256> protocols_{};       // IP protocol number -> uppers_ index
  std::vector<ip4::Addr> local_, broadcasts_;  // of the interfaces, for per-packet checks
  uint16_t next_id_ = 1;
  bool forwarding_ = false;
  bool defragment_all_ = false;
  // Datagrams this host sent to one of its own addresses, delivered on the
  // next poll (not from inside the sender's call).
  std::vector<std::pair<InterfaceId, PacketPtr>> loopback_;
};

}  // namespace net
