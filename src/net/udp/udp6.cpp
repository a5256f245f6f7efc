// UDP over IPv6 (RFC 8200 §8.1: the checksum is mandatory), through the
// same socket table as IPv4: a socket bound to any() of either family, or
// to one of our IPv6 addresses, takes IPv6 datagrams.
#include <cstring>

#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp6.hpp"
#include "net/wire/udp.hpp"
#include "udp_layer.hpp"

namespace net {

void UdpLayer::receive(const Ip6Received& info, PacketPtr packet) {
  if (check_and_queue(info, packet)) return;
  // RFC 4443 §3.1: port unreachable (never about a group: Icmp6 checks).
  if (packet && !info.to_multicast) {
    const uint8_t* header = packet->data() - info.header_len;
    parts_.icmp6.send_error(wire::icmp6::destination_unreachable, wire::icmp6::port_unreachable, 0,
                            header, packet->size() + info.header_len, info.in);
  }
}

Status UdpLayer::send6(Slot& s, const Endpoint& destination, std::span<const uint8_t> payload,
                       const Address& from) {
  const ip6::Addr& dst = destination.address.ip6();
  ip6::Addr source = s.address.is_ip6() ? s.address.ip6() : ip6::Addr{};
  if (!s.address.is_any() && !s.address.is_ip6()) return Status::invalid;  // an IPv4 socket
  if (from.is_ip6() && !from.is_any() && !ip6addr::is_multicast(from.ip6())) {
    if (!parts_.ip6.is_local_address(from.ip6())) return Status::invalid;
    source = from.ip6();
  }
  auto path = parts_.ip6.route(dst, source, s.interface);
  if (!path) {
    ++counters_.drop_tx_failed;
    return path.status;
  }
  Link& link = parts_.link(path->interface);
  if (link.congested()) {
    s.wants_writable = true;
    ++counters_.drop_tx_failed;
    return Status::would_block;
  }
  auto total = uint32_t(wire::udp_header_size + payload.size());
  // Over the link MTU, IPv6 sends it in fragments (RFC 8200 §4.5); the UDP
  // length field is 16 bits (no jumbograms, RFC 2675).
  if (total > wire::ip6_max_payload) {
    ++counters_.drop_tx_failed;
    return Status::too_big;
  }
  auto [packet, h, offload] = link.allocate(total);
  if (!packet) {
    ++counters_.drop_tx_failed;
    return Status::no_buffer;
  }
  if (!payload.empty()) std::memcpy(h + wire::udp_header_size, payload.data(), payload.size());
  wire::UdpRepr{s.port, destination.port, uint16_t(payload.size())}.emit(h, path->source, dst);
  Status status = parts_.ip6.send(*path, dst, wire::ip_protocol_udp, std::move(packet));
  ++(status == Status::ok ? counters_.tx : counters_.drop_tx_failed);
  return status;
}

}  // namespace net
