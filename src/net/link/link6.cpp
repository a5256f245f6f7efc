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

// A new address is tentative until duplicate address detection is done
// (Ndp::start_dad, RFC 4862 §5.4): only then is it ours and announced.
void Link::configure6(const ip6::Addr& address, uint8_t prefix_len, const ip6::Addr& gateway) {
  prefix6_ = prefix_len;
  gateway6_ = gateway;
  if (!address.is_any()) ip6_on_ = true;
  if (address == address6_ && !address.is_any()) {
    print_address6();
    configured();
    return;
  }
  ndp_.clear();
  address6_ = {};
  if (!address.is_any()) ndp_.start_dad(address);
}

void Link::dad_finished(const ip6::Addr& address, bool unique) {
  if (!unique) {
    std::printf("%s: %s is in use on the link (duplicate address detection): not configured\n",
                name_.c_str(), Address(address).to_string().c_str());
    return;
  }
  address6_ = address;
  print_address6();
  configured();
}

void Link::print_address6() const {
  std::printf("%s: %s/%u link-local %s%s%s\n", name_.c_str(),
              Address(address6_).to_string().c_str(), prefix6_,
              Address(link_local_).to_string().c_str(), gateway6_.is_any() ? "" : " gateway ",
              gateway6_.is_any() ? "" : Address(gateway6_).to_string().c_str());
}

}  // namespace net
