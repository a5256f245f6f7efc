// Reading a packet once for the stateful firewall (packet_info.hpp).
#include "packet_info.hpp"

#include "net/wire/icmp4.hpp"
#include "net/wire/ip4.hpp"
#include "net/wire/tcp.hpp"
#include "net/wire/udp.hpp"

namespace keel::firewall {
namespace {

using net::wire::load16;
using net::wire::load32;

constexpr uint32_t kPortBytes =
    4;  // the first 8 bytes of a quoted datagram hold both ports (RFC 792)

// The tuple of a datagram quoted in an ICMP error: its header and at least its ports.
bool read_quoted(const uint8_t* ip, size_t len, FlowKey& key) {
  net::wire::Ip4View<const uint8_t> v(ip, len);
  if (len < net::wire::ip4_header_min || v.version() != net::wire::ip4_version ||
      v.header_len() < net::wire::ip4_header_min || v.header_len() > len)
    return false;
  key = FlowKey{};
  key.src = v.src().value;
  key.dst = v.dst().value;
  key.proto = v.protocol();
  const uint8_t* l4 = ip + v.header_len();
  size_t l4_len = len - v.header_len();
  if (has_ports(key.proto)) {
    if (l4_len < kPortBytes || v.fragment_offset() != 0) return false;
    key.sport = load16(l4);
    key.dport = load16(l4 + 2);
  } else if (key.proto == kProtoIcmp) {
    if (l4_len < net::wire::icmp4_header_size || v.fragment_offset() != 0) return false;
    if (icmp_reply_type(l4[0]) < 0) return false;  // only queries have flows
    key.sport = load16(l4 + 4);
    key.dport = l4[0];
  }
  return true;
}

void read_tcp(const uint8_t* l4, size_t len, PacketInfo& out) {
  if (len < net::wire::tcp_header_min) {
    out.malformed = Malformed::truncated_l4;
    return;
  }
  net::wire::TcpView<const uint8_t> t(l4, len);
  out.key.sport = out.fields.sport = t.src_port();
  out.key.dport = out.fields.dport = t.dst_port();
  out.fields.tcp_flags = t.flags();
  out.seq = t.seq();
  out.ack = t.ack();
  out.window = t.window();
  out.tcp_header_len = t.header_len();
  if (t.header_len() < net::wire::tcp_header_min || t.header_len() > len)
    out.malformed = Malformed::bad_tcp_offset;
}

void read_udp(const uint8_t* l4, size_t len, PacketInfo& out) {
  if (len < net::wire::udp_header_size) {
    out.malformed = Malformed::truncated_l4;
    return;
  }
  net::wire::UdpView<const uint8_t> u(l4, len);
  out.key.sport = out.fields.sport = u.src_port();
  out.key.dport = out.fields.dport = u.dst_port();
  if (u.length() < net::wire::udp_header_size || u.length() > len)
    out.malformed = Malformed::bad_udp_length;
}

void read_icmp(const uint8_t* l4, size_t len, PacketInfo& out) {
  if (len < net::wire::icmp4_header_size) {
    out.malformed = Malformed::truncated_l4;
    return;
  }
  out.fields.icmp_type = l4[0];
  out.fields.icmp_code = l4[1];
  out.icmp_id = load16(l4 + 4);
  out.key.sport = out.icmp_id;
  out.key.dport = l4[0];
  out.icmp_error = is_icmp_error(l4[0]);
  if (out.icmp_error) {
    out.inner_offset = out.header_len + net::wire::icmp4_header_size;
    out.inner_ok = read_quoted(l4 + net::wire::icmp4_header_size,
                               len - net::wire::icmp4_header_size, out.inner);
  }
}

}  // namespace

bool read_packet(const uint8_t* ip, size_t len, PacketInfo& out) {
  out = PacketInfo{};
  net::wire::Ip4View<const uint8_t> v(ip, len);
  if (len < net::wire::ip4_header_min || v.header_len() < net::wire::ip4_header_min ||
      v.header_len() > len || v.total_length() > len || v.total_length() < v.header_len())
    return false;
  out.header_len = v.header_len();
  out.l4_len = v.total_length() - v.header_len();
  Packet& f = out.fields;
  f.saddr = out.key.src = v.src().value;
  f.daddr = out.key.dst = v.dst().value;
  f.proto = out.key.proto = v.protocol();
  f.ttl = v.ttl();
  f.length = v.total_length();
  if (v.is_fragment()) {
    out.malformed = Malformed::fragment;
    if (v.fragment_offset() != 0) return true;  // no transport header here
  }
  const uint8_t* l4 = ip + out.header_len;
  switch (f.proto) {
    case kProtoTcp:
      read_tcp(l4, out.l4_len, out);
      break;
    case kProtoUdp:
      read_udp(l4, out.l4_len, out);
      break;
    case kProtoIcmp:
      read_icmp(l4, out.l4_len, out);
      break;
    default:
      break;
  }
  return true;
}

}  // namespace keel::firewall
