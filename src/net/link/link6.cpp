// An interface's IPv6 settings and output (docs/net/ipv6.md): the static
// address, prefix and gateway, SLAAC's (routers.hpp, slaac.hpp), and
// packets to a group or a neighbour.
#include <algorithm>
#include <cstdio>

#include "link.hpp"
#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/ethernet.hpp"

namespace net {

void Link::transmit_ip6(PacketPtr packet, const ip6::Addr& next_hop) {
  if (ip6addr::is_multicast(next_hop)) {
    transmit_frame(std::move(packet), ip6addr::multicast_mac(next_hop), wire::ethertype_ip6);
  } else {
    ndp_.transmit(std::move(packet), next_hop);
  }
}

// RFC 4861 §7.2.1: all-nodes and the solicited-node groups of our
// addresses (the NIC passes every group: docs/net/ipv6.md).
bool Link::accepts_group6(const ethernet::Addr& mac) const {
  if (mac == ip6addr::multicast_mac(ip6addr::all_nodes())) return true;
  bool found = false;
  for_each_address6([&](const ip6::Addr& a) {
    found = found || mac == ip6addr::multicast_mac(ip6addr::solicited_node(a));
  });
  return found;
}

bool Link::is_solicited_group6(const ip6::Addr& group) const {
  bool found = false;
  for_each_address6(
      [&](const ip6::Addr& a) { found = found || group == ip6addr::solicited_node(a); });
  return found;
}

ip6::Addr Link::global_source6() const {
  if (!address6_.is_any()) return address6_;
  return routers_.slaac().source(now()).value_or(ip6::Addr{});
}

bool Link::forwards6() const { return parts_.ip6.forwarding(); }

void Link::neighbour_unreachable(const Packet& packet) { parts_.ip6.neighbour_unreachable(packet); }

int Link::on_link_length6(const ip6::Addr& a) const {
  int advertised = routers_.on_link_length(a);
  bool in_static = !address6_.is_any() && ip6addr::in_prefix(a, address6_, prefix6_);
  return in_static ? std::max(int(prefix6_), advertised) : advertised;
}

ip6::Addr Link::router6() const {
  if (!gateway6_.is_any()) return gateway6_;
  return routers_.default_router().value_or(ip6::Addr{});
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
  routers_.stop();
  address6_ = {};
  pending6_ = address;
  if (!address.is_any()) ndp_.start_dad(address);
  addresses6_changed();
}

void Link::start_slaac(SlaacIid iid) {
  ip6_on_ = true;
  routers_.start(iid);
  addresses6_changed();
}

void Link::dad_finished(const ip6::Addr& address, bool unique) {
  const char* name = name_.c_str();
  std::string text = Address(address).to_string();
  switch (routers_.slaac().dad_finished(address, unique)) {
    case Slaac::Dad::formed:
      std::printf("%s: %s/%u (SLAAC) link-local %s\n", name, text.c_str(), Slaac::prefix_length,
                  Address(link_local_).to_string().c_str());
      configured();
      return;
    case Slaac::Dad::retrying:
      std::printf("%s: %s is in use on the link: SLAAC tries another\n", name, text.c_str());
      return;
    case Slaac::Dad::given_up:
      std::printf("%s: %s is in use on the link: no SLAAC address\n", name, text.c_str());
      return;
    case Slaac::Dad::not_ours:
      break;
  }
  if (address != pending6_) return;  // (a SLAAC address that expired meanwhile)
  pending6_ = {};
  if (!unique) {
    std::printf("%s: %s is in use on the link (duplicate address detection): not configured\n",
                name, text.c_str());
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
