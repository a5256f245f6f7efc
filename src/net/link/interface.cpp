// net::Interface: the public face of a Link.
#include <net/interface.hpp>

#include "link.hpp"

namespace net {

Interface::Interface(std::unique_ptr<Link> link) : link_(std::move(link)) {}
Interface::~Interface() = default;

InterfaceId Interface::id() const { return link_->id(); }
const std::string& Interface::name() const { return link_->name(); }
Nic& Interface::nic() { return link_->nic(); }
ethernet::Addr Interface::mac() const { return link_->mac(); }
uint16_t Interface::mtu() const { return link_->mtu(); }

void Interface::configure(ip4::Addr address, ip4::Addr netmask, ip4::Addr gateway,
                          std::vector<ip4::Addr> dns) {
  link_->configure(address, netmask, gateway, std::move(dns));
}
void Interface::deconfigure() { link_->deconfigure(); }
void Interface::apply(const InterfaceConfig& config) { link_->apply(config); }
void Interface::start_dhcp(const InterfaceConfig& fallback) { link_->start_dhcp(fallback); }
bool Interface::is_configured() const { return link_->is_configured(); }
ip4::Addr Interface::address() const { return link_->address(); }
void Interface::configure6(const ip6::Addr& address, uint8_t prefix_len, const ip6::Addr& gateway) {
  link_->configure6(address, prefix_len, gateway);
}
ip6::Addr Interface::address6() const { return link_->global_source6(); }
ip6::Addr Interface::link_local() const { return link_->link_local(); }
ip4::Addr Interface::netmask() const { return link_->netmask(); }
ip4::Addr Interface::gateway() const { return link_->gateway(); }
const std::vector<ip4::Addr>& Interface::dns() const { return link_->dns(); }
std::vector<ip6::Addr> Interface::dns6() const {
  std::vector<ip6::Addr> out;
  for (const auto& d : link_->routers().dns_servers()) out.push_back(d.address);
  return out;
}
std::vector<std::string> Interface::dns_search() const {
  std::vector<std::string> out;
  for (const auto& d : link_->routers().search_domains()) out.push_back(d.name);
  return out;
}
void Interface::on_config(ConfigHandler handler) { link_->on_config(std::move(handler)); }
void Interface::join(ip4::Addr group) { link_->join(group); }
void Interface::leave(ip4::Addr group) { link_->leave(group); }
bool Interface::joined(ip4::Addr group) const { return link_->joined(group); }
const InterfaceCounters& Interface::counters() const { return link_->counters(); }
std::size_t Interface::transmit_backlog() const { return link_->backlog(); }
void Interface::receive(PacketPtr frame) { link_->receive(std::move(frame)); }

}  // namespace net
