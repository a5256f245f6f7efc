// The path of outgoing segments, by the key's family: IPv4's routing and
// output (DF set, checksum offload where the NIC has it) or IPv6's (RFC
// 8200: no fragmentation by routers, so no DF; the checksum over the IPv6
// pseudo-header, §8.1, computed here unless the NIC segments). With TSO a
// segment may carry many MSS of payload: the NIC cuts it (segment_limit).
#include "net/stack_parts.hpp"
#include "tcp_layer.hpp"

namespace net {

Result<TcpPath> TcpLayer::route(const tcp::ConnectionKey& key) const {
  TcpPath path;
  if (key.is_ip6()) {
    auto p = parts_.ip6.route(key.remote, key.local);
    if (!p) return p.status;
    path.interface = p->interface;
    path.ip6 = *p;
  } else {
    auto p = parts_.ip4.route(key.remote4(), key.local4());
    if (!p) return p.status;
    path.interface = p->interface;
    path.ip4 = *p;
  }
  return path;
}

bool TcpLayer::congested(const TcpPath& path) const {
  return parts_.link(path.interface).congested();
}

uint32_t TcpLayer::mtu(const TcpPath& path, const tcp::ConnectionKey& key) const {
  if (!key.is_ip6()) return parts_.link(path.interface).mtu();
  return parts_.ip6.path_mtu(path.interface, key.remote);  // the link's, or lower
}

uint32_t TcpLayer::segment_limit(const tcp::ConnectionKey& key, uint32_t mss) const {
  if (!segmentation_offload_ || mss == 0) return mss;
  auto path = route(key);
  if (!path || !parts_.link(path->interface).segments_tcp(key.is_ip6())) return mss;
  // Looped back, a segment meets no device to cut it (nor to finish its checksum).
  if (key.is_ip6() ? parts_.ip6.is_local_address(key.remote)
                   : parts_.ip4.is_local_address(key.remote4()))
    return mss;
  uint32_t ip_payload =
      key.is_ip6() ? wire::ip6_max_payload : wire::ip4_max_total_length - wire::ip4_header_min;
  uint32_t most = ip_payload - wire::tcp_header_max;
  return std::max(mss, most / mss * mss);
}

bool TcpLayer::send(const TcpPath& path, const tcp::ConnectionKey& key, const wire::TcpRepr& header,
                    const tcp::SendBuffer* data, std::size_t offset, uint32_t mss) {
  Link& link = parts_.link(path.interface);
  uint32_t header_len = header.header_len();
  uint32_t total = header_len + header.payload_len;
  bool segmented = mss > 0 && header.payload_len > mss;
  auto [packet, h, offload] = link.allocate(total, segmented);
  if (!packet) {
    ++counters_.drop_tx_failed;
    return false;
  }
  if (data && header.payload_len > 0) data->copy(offset, header.payload_len, h + header_len);
  if (segmented) {
    // Each segment the NIC cuts repeats this header, SACK blocks included:
    // the MSS counted only timestamps, so the payload per segment shrinks
    // by what else this header carries, to stay within the MTU.
    uint32_t ip_header = key.is_ip6() ? wire::ip6_header_size : wire::ip4_header_min;
    uint32_t fits = link.mtu() - ip_header - header_len;
    packet->flags |= Packet::segmentation_offload;
    packet->gso_size = uint16_t(std::min(mss, fits));
  }
  Status status;
  if (key.is_ip6()) {
    // IPv6 offloads the checksum only with TSO (segmented): the device
    // completes each segment's (RFC 8200 §8.1 pseudo-header).
    if (segmented) {
      header.emit(h, key.local, key.remote, wire::TcpRepr::Checksum::pseudo_header_only);
      packet->flags |= Packet::checksum_partial;
      packet->csum_start = 0;
      packet->csum_offset = wire::tcp_checksum_offset;
    } else {
      header.emit(h, key.local, key.remote);
    }
    status = parts_.ip6.send(path.ip6, key.remote, wire::ip_protocol_tcp, std::move(packet));
  } else {
    ip4::Addr local = key.local4(), remote = key.remote4();
    // The NIC completes the checksum when it can (Link::allocate).
    if (offload) {
      header.emit(h, local, remote, wire::TcpRepr::Checksum::pseudo_header_only);
      packet->flags |= Packet::checksum_partial;
      packet->csum_start = 0;
      packet->csum_offset = wire::tcp_checksum_offset;
    } else {
      header.emit(h, local, remote);
    }
    // RFC 1191: DF on everything, so routers report a smaller path MTU.
    status = parts_.ip4.send(path.ip4, remote, wire::ip_protocol_tcp, std::move(packet),
                             Ip4SendOptions{.dont_fragment = true});
  }
  if (status != Status::ok) {
    ++counters_.drop_tx_failed;
    return false;
  }
  ++counters_.tx;
  return true;
}

void TcpLayer::send_reset(const tcp::ConnectionKey& key, const tcp::Segment& s) {
  // RFC 9293 §3.10.7.1: <SEQ=SEG.ACK><CTL=RST> if it had an ACK, else
  // <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>.
  wire::TcpRepr r{key.local_port, key.remote_port, 0, 0, wire::tcp_flag::rst, 0, 0, {}, 0};
  if (s.has(wire::tcp_flag::ack)) {
    r.seq = s.header.ack;
  } else {
    r.ack = s.seq() + s.len();
    r.flags |= wire::tcp_flag::ack;
  }
  auto path = route(key);
  if (path && send(*path, key, r)) ++counters_.tx_resets;
}

}  // namespace net
