// UDP (RFC 768): net::Udp and net::UdpSocket (api/net/udp.hpp).
#include <net/udp.hpp>

#include <cstring>

#include "bytes.hpp"
#include "ip4_header.hpp"

namespace net {
namespace {
using keel::net::load16;
using keel::net::store16;
constexpr uint32_t header_size = 8;
}  // namespace

Status UdpSocket::sendto(ip4::Addr dst, uint16_t dport, const void* data, std::size_t len) {
  return udp_.sendto(dst, dport, data, len, port_);
}

void UdpSocket::close() { udp_.close(port_); }

uint16_t Udp::next_ephemeral() {
  // Sequential in the dynamic range, skipping bound ports.
  for (int tries = 0; tries <= ephemeral_last - ephemeral_first; ++tries) {
    uint16_t port = ephemeral_next_;
    ephemeral_next_ = port == ephemeral_last ? ephemeral_first : uint16_t(port + 1);
    if (!is_bound(port)) return port;
  }
  return 0;
}

UdpSocket& Udp::bind(uint16_t port) {
  if (port == 0) port = next_ephemeral();
  auto& socket = sockets_[port];
  if (!socket) socket = std::make_unique<UdpSocket>(*this, port);
  return *socket;
}

Status Udp::sendto(ip4::Addr dst, uint16_t dport, const void* data, std::size_t len, uint16_t sport) {
  if (dport == 0) return Status::invalid;
  if (len > max_payload) return Status::too_big;
  if (!output_ || !allocate_) return Status::not_configured;
  if (sport == 0) sport = next_ephemeral();
  uint32_t total = uint32_t(header_size + len);

  PacketPtr packet = allocate_();
  if (!packet) {
    ++counters_.drop_tx_failed;
    return Status::no_buffer;
  }
  uint8_t* h = packet->append(total);
  bool large = h == nullptr;
  if (large) {
    // Larger than a pool buffer: a heap buffer of its own, which IPv4 copies
    // into fragments (or, on a jumbo link, sends as it is).
    packet = allocate_heap_packet(total);
    h = packet ? packet->append(total) : nullptr;
    if (!h) {
      ++counters_.drop_tx_failed;
      return Status::no_buffer;
    }
  }
  store16(h, sport);
  store16(h + 2, dport);
  store16(h + 4, uint16_t(total));
  store16(h + 6, 0);
  if (len) std::memcpy(h + header_size, data, len);
  ip4::Addr src = source_ ? source_() : ip4::Addr{};
  uint32_t pseudo = keel::net::pseudo_header_sum(src, dst, keel::net::ip4::protocol_udp, uint16_t(total));
  if (checksum_offload_ && !large) {
    // The device completes it: leave the pseudo-header sum (virtio NEEDS_CSUM).
    store16(h + 6, keel::net::checksum_fold(pseudo));
    packet->flags |= Packet::checksum_partial;
    packet->csum_start = 0;
    packet->csum_offset = 6;
  } else {
    uint16_t sum = uint16_t(~keel::net::checksum_fold(keel::net::checksum_add(pseudo, h, total)));
    store16(h + 6, sum == 0 ? 0xffff : sum);  // RFC 768: 0 means "no checksum"
  }
  Status status = output_(dst, std::move(packet));
  if (status == Status::ok) {
    ++counters_.tx;
  } else {
    ++counters_.drop_tx_failed;
  }
  return status;
}

void Udp::receive(ip4::Addr src, ip4::Addr dst, PacketPtr packet, uint32_t ip_header_len,
                  bool to_broadcast) {
  ++counters_.rx;
  if (packet->size() < header_size) {
    ++counters_.drop_truncated;
    return;
  }
  const uint8_t* h = packet->data();
  uint16_t length = load16(h + 4);
  if (length < header_size || length > packet->size()) {
    ++counters_.drop_bad_length;
    return;
  }
  packet->trim(length);
  uint16_t sum = load16(h + 6);
  // RFC 768: a zero checksum was not computed by the sender.
  if (sum != 0 && !(packet->flags & Packet::checksum_verified)) {
    uint32_t pseudo = keel::net::pseudo_header_sum(src, dst, keel::net::ip4::protocol_udp, length);
    if (keel::net::checksum_fold(keel::net::checksum_add(pseudo, h, length)) != 0xffff) {
      ++counters_.drop_bad_checksum;
      return;
    }
  }
  uint16_t sport = load16(h), dport = load16(h + 2);
  auto it = sockets_.find(dport);
  if (it == sockets_.end() || !it->second->handler_) {
    ++counters_.drop_no_port;
    // RFC 1122 §4.1.3.1: port unreachable, but never about a broadcast.
    if (unreachable_ && !to_broadcast) unreachable_(std::move(packet), ip_header_len);
    return;
  }
  // The handler may close its own socket: close() then defers the erase.
  dispatching_ = dport;
  it->second->handler_(src, sport, reinterpret_cast<const char*>(h + header_size),
                       length - header_size);
  dispatching_ = 0;
  if (close_pending_) {
    close_pending_ = false;
    sockets_.erase(dport);
  }
}

void Udp::close(uint16_t port) {
  if (port != 0 && port == dispatching_) {
    close_pending_ = true;
    return;
  }
  sockets_.erase(port);
}

}  // namespace net
