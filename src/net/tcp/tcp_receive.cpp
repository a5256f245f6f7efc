// A segment from IPv4 to its connection, its listener, or a RST (RFC 9293
// §3.10.7.1), the demultiplexing IPv6 shares (tcp_ip6.cpp); and ICMP errors to the connection whose
// segment they quote (RFC 1191 path MTU, RFC 5927 checks, RFC 1122 §4.2.3.9 hard errors).
#include "net/stack_parts.hpp"
#include "seq.hpp"
#include "tcp_layer.hpp"

namespace net {
namespace {

namespace flag = wire::tcp_flag;

// RFC 1191 §7: MTU plateaus, for a "fragmentation needed" without the
// next hop's MTU (routers older than RFC 1191).
constexpr uint16_t mtu_plateaus[] = {32000, 17914, 8166, 4352, 2002, 1492, 1006, 508, 296, 68};
// Lower reports are not believed (Linux's min_pmtu: a forged ICMP must
// not make every segment tiny, RFC 5927 §7.2).
constexpr uint32_t min_path_mtu = 552;

}  // namespace

void TcpLayer::receive(const Ip4Received& info, PacketPtr packet) {
  Work work(*this);
  ++counters_.rx;
  const wire::Ip4Repr& ip = info.header;
  // RFC 1122 §4.2.3.10: nothing to or from a broadcast or multicast address.
  if (info.to_broadcast || info.to_multicast) {
    ++counters_.drop_to_broadcast;
    return;
  }
  wire::TcpView<uint8_t> v(packet->data(), packet->size());
  bool verified = packet->flags & Packet::checksum_verified;
  if (!counted_ok(v.check(ip.src, ip.dst, !verified))) return;
  demultiplex(tcp::ConnectionKey{ip.dst, ip.src, v.dst_port(), v.src_port()}, v);
}

bool TcpLayer::counted_ok(wire::TcpError error) {
  switch (error) {
    case wire::TcpError::none:
      return true;
    case wire::TcpError::truncated:
      ++counters_.drop_truncated;
      return false;
    case wire::TcpError::bad_data_offset:
      ++counters_.drop_bad_data_offset;
      return false;
    case wire::TcpError::bad_checksum:
      ++counters_.drop_bad_checksum;
      return false;
  }
  return false;
}

void TcpLayer::demultiplex(const tcp::ConnectionKey& key, const wire::TcpView<uint8_t>& v) {
  wire::TcpOptionError option_error;
  tcp::Segment s{wire::TcpRepr::parse(v, &option_error), {v.payload(), v.payload_len()}};
  if (option_error != wire::TcpOptionError::none) ++counters_.rx_bad_options;
  if (key.local_port == 0 || key.remote_port == 0) {
    ++counters_.drop_no_connection;
    return;
  }
  uint64_t t = now();
  if (uint32_t* slot = table_.find(key)) {
    tcp::Connection& c = *slots_[*slot].connection;
    c.input(s, t);
    schedule(c);
    return;
  }
  if (tcp::TimeWaitRecord* record = time_waits_.find(key)) {
    if (time_wait_input(*record, s, t)) return;
  }
  if (uint32_t listener = find_listener(key.local_address(), key.local_port); listener != none) {
    listen_input(listener, key, s, t);
    return;
  }
  ++counters_.drop_no_connection;
  if (!s.has(flag::rst)) send_reset(key, s);
}

void TcpLayer::icmp_error(const Icmp4ErrorReport& report) {
  Work work(*this);
  wire::Ip4View<const uint8_t> ip(report.quoted, report.quoted_len);
  const uint8_t* t = report.quoted + ip.header_len();  // Icmp4 checked: 8 bytes are there
  tcp::ConnectionKey key{ip.src(), ip.dst(), wire::load16(t), wire::load16(t + 2)};
  tcp::Connection* c = icmp_target(key, wire::load32(t + 4));
  if (!c) return;
  if (report.type == wire::icmp4::unreachable && report.code == wire::icmp4::fragmentation_needed) {
    uint32_t mtu = report.rest & 0xffff;
    if (mtu == 0) {
      for (uint16_t plateau : mtu_plateaus) {
        if (plateau < ip.total_length()) {
          mtu = plateau;
          break;
        }
      }
    }
    c->path_mtu(std::max(mtu, min_path_mtu), now());
    return;
  }
  // RFC 1122 §4.2.3.9 and RFC 5461: while connecting, unreachable ends the
  // attempt (as Linux does); on an established connection errors are soft
  // (routes change), and time exceeded always is.
  if (c->state == TcpState::syn_sent && report.type == wire::icmp4::unreachable) {
    bool refused = report.code == wire::icmp4::protocol_unreachable ||
                   report.code == wire::icmp4::port_unreachable;
    c->unreachable(refused ? TcpCloseReason::refused : TcpCloseReason::unreachable);
  }
}

tcp::Connection* TcpLayer::icmp_target(const tcp::ConnectionKey& key, uint32_t seq) {
  uint32_t* slot = table_.find(key);
  tcp::Connection* c = slot ? slots_[*slot].connection.get() : nullptr;
  // RFC 5927 §4.1: act only on a sequence number in flight.
  if (!c || !tcp::seq_in(seq, c->snd_una, c->snd_nxt)) {
    ++counters_.drop_icmp_unmatched;
    return nullptr;
  }
  return c;
}

namespace tcp {

void Connection::path_mtu(uint32_t mtu, uint64_t now) {
  // RFC 1191 §6.3: only ever lower; never below what a header needs.
  if (mtu >= path_mtu_bytes || mtu <= ip_tcp_headers(key)) return;
  path_mtu_bytes = mtu;
  set_mss_from_route();
  ++layer.counters().pmtu_updates;
  // RFC 1191 §6.5: what was sent too large is sent again at once, in the
  // new size, without taking it for congestion (cwnd stays).
  if (snd_una != snd_nxt && state != TcpState::syn_sent && state != TcpState::syn_received) {
    recovery = Recovery::loss;
    recovery_point = snd_nxt;
    high_rxt = snd_una;
    output(now);
  }
}

void Connection::unreachable(TcpCloseReason reason) { finish(reason); }

}  // namespace tcp
}  // namespace net
