// The host stack's routing tables, one per family: longest prefix match,
// then the lowest metric. Configuring an interface adds its connected IPv4
// subnet (metric 0) and, with a gateway, a default route through it
// (metric 100 + the interface's id); IPv6's connected prefixes and
// default routers stay with their interface (decision 0134), so the IPv6
// table holds what route= words, the config and services add.
//
//   net::Route r;
//   r.destination = {10, 2, 0, 0};
//   r.prefix_len = 16;
//   r.gateway = {10, 0, 0, 254};
//   r.interface = 0;
//   stack.routes().add(r);
//
//   net::Route6 r6;
//   r6.destination = *net::Address::parse("2001:db8:2::")->ip6();
//   r6.prefix_len = 48;
//   r6.gateway = net::Address::parse("fd01::1")->ip6();
//   r6.interface = 1;
//   stack.routes6().add(r6);
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/ip4_addr.hpp>
#include <net/status.hpp>
#include <optional>
#include <string>
#include <vector>

namespace net {

using InterfaceId = uint16_t;
inline constexpr InterfaceId no_interface = 0xffff;

struct Route {
  using Addr = ip4::Addr;
  static constexpr uint8_t max_prefix = 32;

  ip4::Addr destination;   // the network: its host bits are cleared on add()
  uint8_t prefix_len = 0;  // 0..32; 0 with destination 0.0.0.0 is the default route
  ip4::Addr gateway;       // any(): the destination is on the interface's link
  InterfaceId interface = no_interface;
  uint32_t metric = 0;  // lower wins between equal prefixes
  ip4::Addr source;     // preferred source; any(): the interface's address

  bool contains(ip4::Addr a) const {
    return (a.value & ip4::netmask_of(prefix_len).value) == destination.value;
  }
  static ip4::Addr network(ip4::Addr a, uint8_t prefix_len) {
    return ip4::Addr(a.value & ip4::netmask_of(prefix_len).value);
  }
  std::string to_string() const;  // "10.2.0.0/16 via 10.0.0.254 dev 0 metric 0"
  friend bool operator==(const Route&, const Route&) = default;
};

// The same for IPv6 (RFC 4291 §2.3 prefixes).
struct Route6 {
  using Addr = ip6::Addr;
  static constexpr uint8_t max_prefix = 128;

  ip6::Addr destination;   // the prefix: bits past prefix_len are cleared on add()
  uint8_t prefix_len = 0;  // 0..128; ::/0 is the default route
  ip6::Addr gateway;       // any(): on the interface's link
  InterfaceId interface = no_interface;
  uint32_t metric = 0;
  ip6::Addr source;  // preferred source; any(): the interface's address of that scope

  bool contains(const ip6::Addr& a) const { return network(a, prefix_len) == destination; }
  static ip6::Addr network(const ip6::Addr& a, uint8_t prefix_len);
  std::string to_string() const;  // "2001:db8:2::/48 via fd01::1 dev 1 metric 0"
  friend bool operator==(const Route6&, const Route6&) = default;
};

// A routing table of Route or Route6 (src/net/routes.cpp has both).
template <class R>
class RouteTable {
 public:
  using Addr = typename R::Addr;

  // invalid: prefix over the family's length, or no such interface. A route
  // to the same network through the same interface and gateway is replaced.
  Status add(R route);
  // Removes the route to destination/prefix_len through `interface` (any
  // gateway); false when there is none.
  bool remove(Addr destination, uint8_t prefix_len, InterfaceId interface);
  // Every route of the interface (it went down or changed its address).
  void remove_interface(InterfaceId interface);
  // The route packets to `destination` take; nullopt when none.
  std::optional<R> lookup(const Addr& destination) const;
  // Every route, most specific first.
  const std::vector<R>& all() const { return routes_; }

  // Set by the stack: which interface ids exist.
  void set_interface_count(std::size_t n) { interface_count_ = n; }

 private:
  // Sorted by prefix length (longest first), then metric: the first route
  // that contains a destination is the answer. Tables here hold tens of
  // routes; a router with thousands would want a trie (decision 0022).
  std::vector<R> routes_;
  std::size_t interface_count_ = 0;
};

using Routes = RouteTable<Route>;
using Routes6 = RouteTable<Route6>;

}  // namespace net
