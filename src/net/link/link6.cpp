// An interface's IPv6 settings and output (docs/net/ipv6.md): the static
// address, prefix and gateway, and packets to a group or a neighbour.
#include <cstdio>

#include "link.hpp"
#include "net/ip6/addr.hpp"
#include "net/wire/ethernet.hpp"

namespace net {

void Link::transmit_ip6(PacketPtr packet, const ip6::Addr& next_hop) {
  if (ip6addr::is_multicast(next_hop)) {
    transmit_frame(std::move(packet), ip6addr::multicast_mac(next_hop), wire::ethertype_ip6);
  } else {
    ndp_.transmit(std::move(packet), next_hop);
  }
}

void Link::configure6(const ip6::Addr& address, uint8_t prefix_len, const ip6::Addr& gateway) {
  if (address != address6_) ndp_.clear();
  address6_ = address;
  prefix6_ = prefix_len;
  gateway6_ = gateway;
  std::printf("%s: %s/%u link-local %s%s%s\n", name_.c_str(), Address(address).to_string().c_str(),
              prefix_len, Address(link_local_).to_string().c_str(),
              gateway.is_any() ? "" : " gateway ",
              gateway.is_any() ? "" : Address(gateway).to_string().c_str());
  configured();
}

}  // namespace net
