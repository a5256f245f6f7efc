// One interface's IPv4 stack: Ethernet, ARP, IPv4, ICMPv4, UDP and the DHCP
// client on one NIC, assembled in src/net/inet.cpp. Services get it from
// net::Interfaces::get(n); tests may build one directly on any Nic.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include <net/config.hpp>
#include <net/counters.hpp>
#include <net/ip4_addr.hpp>
#include <net/nic.hpp>
#include <net/status.hpp>
#include <net/udp.hpp>
#include <util/delegate.hpp>

namespace keel::net {
struct Layers;  // the internal layers, see src/net/inet.cpp
}

namespace net {

class Inet {
 public:
  using ConfigHandler = keel::delegate<void(Inet&)>;

  // Wires the layers and takes over the NIC's receive delegate. The NIC must
  // outlive the stack.
  explicit Inet(Nic& nic, std::size_t index = 0, const ReassemblyConfig& reassembly = {});
  ~Inet();
  Inet(const Inet&) = delete;
  Inet& operator=(const Inet&) = delete;

  Udp& udp();
  Nic& nic() { return nic_; }
  std::size_t index() const { return index_; }

  // Static settings: takes effect at once (gratuitous ARP, on_config).
  void configure(ip4::Addr address, ip4::Addr netmask, ip4::Addr gateway = {},
                 std::vector<ip4::Addr> dns = {});
  // Static or DHCP as the config says; Mode::none leaves it unconfigured.
  void apply(const InterfaceConfig& config);
  // Starts the DHCP client (RFC 2131); `fallback` (if it has an address)
  // is applied when no lease is obtained within its dhcp_timeout.
  void start_dhcp(const InterfaceConfig& fallback = {});

  bool is_configured() const;
  ip4::Addr address() const;
  ip4::Addr netmask() const;
  ip4::Addr gateway() const;
  const std::vector<ip4::Addr>& dns() const;

  // Runs `handler` each time the address becomes known or changes (static,
  // DHCP lease, fallback); at once if already configured.
  void on_config(ConfigHandler handler);

  const Counters& counters() const { return counters_; }

  // Tests, fuzzing and bridges: handle a frame as if the NIC received it.
  void receive(PacketPtr frame);

 private:
  void configured();

  Nic& nic_;
  std::size_t index_;
  Counters counters_;
  std::vector<ConfigHandler> config_handlers_;
  std::unique_ptr<keel::net::Layers> layers_;
};

}  // namespace net
