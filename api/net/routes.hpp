// The host stack's IPv4 routing table: longest prefix match, then the
// lowest metric. Configuring an interface adds its connected subnet
// (metric 0) and, with a gateway, a default route through it (metric
// 100 + the interface's id); services and the firewall's `route`
// declarations add more.
//
//   net::Route r;
//   r.destination = {10, 2, 0, 0};
//   r.prefix_len = 16;
//   r.gateway = {10, 0, 0, 254};
//   r.interface = 0;
//   stack.routes().add(r);
#pragma once
#include <cstdint>
#include <net/ip4_addr.hpp>
#include <net/status.hpp>
#include <optional>
#include <string>
#include <vector>

namespace net {

using InterfaceId = uint16_t;
inline constexpr InterfaceId no_interface = 0xffff;

struct Route {
  ip4::Addr destination;   // the network: its host bits are cleared on add()
  uint8_t prefix_len = 0;  // 0..32; 0 with destination 0.0.0.0 is the default route
  ip4::Addr gateway;       // any(): the destination is on the interface's link
  InterfaceId interface = no_interface;
  uint32_t metric = 0;  // lower wins between equal prefixes
  ip4::Addr source;     // preferred source; any(): the interface's address

  bool contains(ip4::Addr a) const {
    return (a.value & ip4::netmask_of(prefix_len).value) == destination.value;
  }
  std::string to_string() const;  // "10.2.0.0/16 via 10.0.0.254 dev 0 metric 0"
  friend bool operator==(const Route&, const Route&) = default;
};

class Routes {
 public:
  // invalid: prefix over 32, or no such interface. A route to the same
  // network through the same interface and gateway is replaced.
  Status add(Route route);
  // Removes the route to destination/prefix_len through `interface` (any
  // gateway); false when there is none.
  bool remove(ip4::Addr destination, uint8_t prefix_len, InterfaceId interface);
  // Every route of the interface (it went down or changed its address).
  void remove_interface(InterfaceId interface);
  // The route packets to `destination` take; nullopt when none.
  std::optional<Route> lookup(ip4::Addr destination) const;
  // Every route, most specific first.
  const std::vector<Route>& all() const { return routes_; }

  // Set by the stack: which interface ids exist.
  void set_interface_count(std::size_t n) { interface_count_ = n; }

 private:
  // Sorted by prefix length (longest first), then metric: the first route
  // that contains a destination is the answer. Tables here hold tens of
  // routes; a router with thousands would want a trie (decision 0022).
  std::vector<Route> routes_;
  std::size_t interface_count_ = 0;
};

}  // namespace net
