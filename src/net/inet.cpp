// One interface's stack, assembled: every delegate joining two layers is set
// here and nowhere else, so this file is the map of the stack.
//
//   receive:  Nic → Ethernet ─┬→ ARP
//                             └→ IPv4 (+ reassembly) ─┬→ ICMPv4
//                                                     └→ UDP → sockets, DHCP client
//   send:     UDP, ICMPv4 → IPv4 (+ fragmentation) → ARP (resolve/queue) → Ethernet → Nic
//   errors:   UDP closed port → ICMPv4 port unreachable;
//             reassembly timeout → ICMPv4 time exceeded
#include <net/inet.hpp>

#include <cstdio>

#include "arp.hpp"
#include "dhcp.hpp"
#include "ethernet.hpp"
#include "icmp4.hpp"
#include "ip4.hpp"

namespace keel::net {

struct Layers {
  Layers(::net::Nic& nic, ::net::Counters& c, const ::net::ReassemblyConfig& reassembly)
      : ethernet(nic, c.ethernet),
        ip4(c.ip4, nic.mtu(), reassembly),
        arp(ethernet, c.arp),
        icmp(c.icmp4),
        udp(c.udp),
        dhcp(udp, nic.mac(), c.dhcp) {}

  Ethernet ethernet;
  Ip4 ip4;
  Arp arp;
  Icmp4 icmp;
  ::net::Udp udp;
  Dhcp dhcp;  // last: it unbinds its UDP port when destroyed
  ::net::ip4::Addr netmask, gateway;
  std::vector<::net::ip4::Addr> dns;
};

}  // namespace keel::net

namespace net {

using keel::net::Layers;
namespace ip4p = keel::net::ip4;

Inet::Inet(Nic& nic, std::size_t index, const ReassemblyConfig& reassembly)
    : nic_(nic), index_(index), layers_(std::make_unique<Layers>(nic, counters_, reassembly)) {
  Layers& l = *layers_;
  auto allocate = [&nic] { return nic.allocate_packet(); };
  Nic::Offloads offloads = nic.offloads();

  // Receive path.
  nic.set_receive([&l](PacketPtr frame) { l.ethernet.receive(std::move(frame)); });
  l.ethernet.set_arp([&l](PacketPtr p) { l.arp.receive(std::move(p)); });
  l.ethernet.set_ip4([&l](PacketPtr p) { l.ip4.receive(std::move(p)); });
  l.ip4.set_icmp([&l](const ip4p::Header& h, PacketPtr p) { l.icmp.receive(h, std::move(p)); });
  l.ip4.set_udp([&l](const ip4p::Header& h, PacketPtr p) {
    l.udp.receive(h.src, h.dst, std::move(p), h.header_len, h.to_broadcast);
  });

  // Send path.
  l.udp.set_allocate(allocate);
  l.udp.set_source([&l] { return l.ip4.address(); });
  l.udp.set_checksum_offload(offloads.tx_checksum);
  l.udp.set_output([&l](ip4::Addr dst, PacketPtr p) {
    return l.ip4.send(dst, ip4p::protocol_udp, std::move(p));
  });
  l.icmp.set_allocate(allocate);
  l.icmp.set_output([&l](ip4::Addr dst, PacketPtr p) {
    return l.ip4.send(dst, ip4p::protocol_icmp, std::move(p));
  });
  l.ip4.set_allocate(allocate);
  l.ip4.set_link_output([&l](PacketPtr p, ip4::Addr next_hop) { l.arp.transmit(std::move(p), next_hop); });
  l.arp.set_allocate(allocate);

  // Errors.
  l.udp.set_unreachable([&l](PacketPtr p, uint32_t ip_header_len) {
    l.icmp.send_port_unreachable(p->data() - ip_header_len, p->size() + ip_header_len);
  });
  l.ip4.set_unreachable([&l](const ip4p::Header&, PacketPtr p) {
    l.icmp.send_protocol_unreachable(p->data(), p->size());
  });
  l.ip4.reassembly().set_time_exceeded(
      [&l](const uint8_t* ip, std::size_t len) { l.icmp.send_time_exceeded(ip, len); });

  // Configuration by DHCP.
  l.dhcp.on_bound([this](const keel::net::Dhcp::Lease& lease, bool renewed) {
    if (renewed) {
      std::printf("net%zu: DHCP lease renewed (%lld s)\n", index_, (long long)lease.lease.count());
      return;
    }
    std::printf("net%zu: DHCP lease %s from %s for %lld s\n", index_,
                lease.address.to_string().c_str(), lease.server.to_string().c_str(),
                (long long)lease.lease.count());
    configure(lease.address, lease.netmask, lease.gateway, lease.dns);
  });
  l.dhcp.on_lost([this] {
    std::printf("net%zu: DHCP lease lost\n", index_);
    layers_->ip4.set_address({}, {}, {});
    layers_->arp.set_address({});
  });
}

Inet::~Inet() { nic_.set_receive(nullptr); }

Udp& Inet::udp() { return layers_->udp; }

void Inet::receive(PacketPtr frame) { layers_->ethernet.receive(std::move(frame)); }

void Inet::configure(ip4::Addr address, ip4::Addr netmask, ip4::Addr gateway,
                     std::vector<ip4::Addr> dns) {
  Layers& l = *layers_;
  l.ip4.set_address(address, netmask, gateway);
  l.netmask = netmask;
  l.gateway = gateway;
  l.dns = std::move(dns);
  l.arp.set_address(address);  // gratuitous ARP
  std::printf("net%zu: %s netmask %s gateway %s\n", index_, address.to_string().c_str(),
              netmask.to_string().c_str(), gateway.to_string().c_str());
  configured();
}

void Inet::apply(const InterfaceConfig& config) {
  switch (config.mode) {
    case InterfaceConfig::Mode::none:
      return;
    case InterfaceConfig::Mode::static_address:
      configure(config.address, config.netmask, config.gateway, config.dns);
      return;
    case InterfaceConfig::Mode::dhcp:
      start_dhcp(config);
      return;
  }
}

void Inet::start_dhcp(const InterfaceConfig& fallback) {
  Layers& l = *layers_;
  l.dhcp.on_fallback([this, fallback] {
    if (!fallback.has_static_address()) {
      std::printf("net%zu: no DHCP lease and no static fallback\n", index_);
      return;
    }
    std::printf("net%zu: no DHCP lease, using the static fallback\n", index_);
    configure(fallback.address, fallback.netmask, fallback.gateway, fallback.dns);
  });
  l.dhcp.start(fallback.dhcp_timeout, fallback.dhcp_t1);
}

bool Inet::is_configured() const { return layers_->ip4.is_configured(); }
ip4::Addr Inet::address() const { return layers_->ip4.address(); }
ip4::Addr Inet::netmask() const { return layers_->netmask; }
ip4::Addr Inet::gateway() const { return layers_->gateway; }
const std::vector<ip4::Addr>& Inet::dns() const { return layers_->dns; }

void Inet::on_config(ConfigHandler handler) {
  config_handlers_.push_back(std::move(handler));
  if (is_configured()) config_handlers_.back()(*this);
}

void Inet::configured() {
  // Index loop: a handler may add handlers.
  for (std::size_t i = 0; i < config_handlers_.size(); ++i) config_handlers_[i](*this);
}

}  // namespace net
