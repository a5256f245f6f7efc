// One network interface of the host stack: a NIC with its Ethernet, ARP,
// IPv4 settings (static or DHCP), multicast groups, transmit queue and
// counters. The stack above (net::Stack) routes between interfaces and
// holds the sockets; services reach an interface as stack.interface(n).
#pragma once
#include <cstddef>
#include <memory>
#include <net/config.hpp>
#include <net/counters.hpp>
#include <net/ip4_addr.hpp>
#include <net/nic.hpp>
#include <net/routes.hpp>
#include <string>
#include <util/delegate.hpp>
#include <vector>

namespace net {

class Link;  // the interface's internals (src/net/link/link.hpp)

class Interface {
 public:
  using ConfigHandler = keel::delegate<void(Interface&)>;

  ~Interface();
  Interface(const Interface&) = delete;
  Interface& operator=(const Interface&) = delete;

  InterfaceId id() const;
  const std::string& name() const;  // "net0"
  Nic& nic();
  ethernet::Addr mac() const;
  uint16_t mtu() const;

  // Static settings, at once: the connected route (and a default route
  // through the gateway), a gratuitous ARP; on_config handlers follow at
  // the stack's next step.
  void configure(ip4::Addr address, ip4::Addr netmask, ip4::Addr gateway = {},
                 std::vector<ip4::Addr> dns = {});
  // Drops the address and the routes configure() added.
  void deconfigure();
  // Static or DHCP as the config says; Mode::none stops DHCP and drops the
  // address.
  void apply(const InterfaceConfig& config);
  // Starts the DHCP client (RFC 2131); `fallback` (if it has an address)
  // is applied when no lease is obtained within its dhcp_timeout.
  void start_dhcp(const InterfaceConfig& fallback = {});

  bool is_configured() const;
  ip4::Addr address() const;
  ip4::Addr netmask() const;
  ip4::Addr gateway() const;
  const std::vector<ip4::Addr>& dns() const;
  // IPv6's recursive DNS servers and search domains as router advertisements
  // gave them (RFC 8106; with `auto`, docs/net/ipv6.md), those whose
  // lifetime ran out gone; empty without.
  std::vector<ip6::Addr> dns6() const;
  std::vector<std::string> dns_search() const;
  // Runs `handler` each time the address becomes known or changes (static,
  // DHCP lease, fallback); at the next step of the event loop if already
  // configured. Like every handler of the stack it runs once the stack is
  // done with what caused it (docs/net/handlers.md); an exception it throws
  // is reported on the console and goes no further.
  void on_config(ConfigHandler handler);

  // IPv6 (docs/net/ipv6.md): a static address with its prefix length and
  // a gateway; the link-local address is the MAC's (modified EUI-64,
  // decision 0130) from the start.
  void configure6(const ip6::Addr& address, uint8_t prefix_len, const ip6::Addr& gateway = {});
  // The static address, else one SLAAC formed (`ip=auto`, docs/net/ipv6.md);
  // any() when there is none.
  ip6::Addr address6() const;
  ip6::Addr link_local() const;

  // IPv4 multicast groups whose frames this interface takes (RFC 1112 §6.4
  // maps each to an Ethernet group address); broadcast is always taken.
  void join(ip4::Addr group);
  void leave(ip4::Addr group);
  bool joined(ip4::Addr group) const;

  const InterfaceCounters& counters() const;
  // Frames waiting in front of the NIC for room in its transmit ring.
  std::size_t transmit_backlog() const;

  // Tests, fuzzing and bridges: handle a frame as if the NIC received it.
  void receive(PacketPtr frame);

 private:
  friend class Stack;
  friend struct StackParts;
  explicit Interface(std::unique_ptr<Link> link);
  std::unique_ptr<Link> link_;
};

}  // namespace net
