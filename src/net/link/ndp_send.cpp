// Neighbor Discovery's messages (RFC 4861 §4.3, §4.4): the solicitations
// and advertisements an Ndp sends (ndp.hpp).
#include <cstring>

#include "link.hpp"
#include "ndp.hpp"
#include "net/ip6/addr.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

constexpr uint32_t target_at = 8;  // RFC 4861 §4.3, §4.4: the target after 8 bytes

}  // namespace

void Ndp::send_icmp(PacketPtr message, const ip6::Addr& src, const ip6::Addr& dst,
                    ethernet::Addr mac) {
  wire::icmp6_fill_checksum(message->data(), message->size(), src, dst);
  wire::Ip6Repr header{src, dst, wire::ip6_next_icmp6, wire::nd::hop_limit,
                       uint16_t(message->size())};
  header.emit(message->push(wire::ip6_header_size));
  link_.transmit_frame(std::move(message), mac, wire::ethertype_ip6);
}

// §7.2.2: to the solicited-node group (or, probing, to the neighbour),
// from our link-local address, with our MAC.
void Ndp::solicit(const ip6::Addr& target, const ip6::Addr* unicast_to, const ethernet::Addr* mac,
                  bool from_unspecified) {
  // RFC 4862 §5.4.2: a detection's solicitation is from :: without our MAC.
  uint32_t option = from_unspecified ? 0 : wire::nd::mac_option_size;
  PacketPtr p = link_.allocate();
  uint8_t* m = p ? p->append(wire::nd::ns_size + option) : nullptr;
  if (!m) return;
  std::memset(m, 0, wire::nd::ns_size);
  m[0] = wire::icmp6::neighbor_solicitation;
  std::memcpy(m + target_at, target.bytes.data(), target.bytes.size());
  if (option) {
    m[wire::nd::ns_size] = wire::nd::option_source_mac;
    m[wire::nd::ns_size + 1] = 1;
    link_.mac().write(m + wire::nd::ns_size + 2);
  }
  ip6::Addr dst = unicast_to ? *unicast_to : ip6addr::solicited_node(target);
  ++counters_.tx_solicitations;
  send_icmp(std::move(p), from_unspecified ? ip6::Addr{} : link_.link_local(), dst,
            mac ? *mac : ip6addr::multicast_mac(dst));
}

// §7.2.4: from the target, override set (not an anycast address), router
// set when we forward (§4.4), with our MAC; to the solicitor, or to all nodes.
void Ndp::advertise(const ip6::Addr& target, const ip6::Addr& to, bool solicited) {
  PacketPtr p = link_.allocate();
  uint8_t* m = p ? p->append(wire::nd::na_size + wire::nd::mac_option_size) : nullptr;
  if (!m) return;
  std::memset(m, 0, wire::nd::na_size);
  m[0] = wire::icmp6::neighbor_advertisement;
  m[4] = uint8_t(wire::nd::na_override | (solicited ? wire::nd::na_solicited : 0) |
                 (link_.forwards6() ? wire::nd::na_router : 0));
  std::memcpy(m + target_at, target.bytes.data(), target.bytes.size());
  m[wire::nd::na_size] = wire::nd::option_target_mac;
  m[wire::nd::na_size + 1] = 1;
  link_.mac().write(m + wire::nd::na_size + 2);
  ++counters_.tx_advertisements;
  if (ip6addr::is_multicast(to)) {
    send_icmp(std::move(p), target, to, ip6addr::multicast_mac(to));
    return;
  }
  Entry* e = find(to);
  if (e && e->state != State::incomplete) {
    send_icmp(std::move(p), target, to, e->mac);
    return;
  }
  // No MAC for the solicitor (a unicast solicitation without one): resolve.
  wire::icmp6_fill_checksum(p->data(), p->size(), target, to);
  wire::Ip6Repr{target, to, wire::ip6_next_icmp6, wire::nd::hop_limit, uint16_t(p->size())}.emit(
      p->push(wire::ip6_header_size));
  transmit(std::move(p), to);
}

}  // namespace net
