// Reading a packet once for the stateful firewall (packet_info.hpp).
#include "packet_info.hpp"

#include "net/ip6/ip6.hpp"
#include "net/wire/icmp4.hpp"
#include "net/wire/ip4.hpp"
#include "net/wire/ip6.hpp"
#include "net/wire/tcp.hpp"
#include "net/wire/udp.hpp"

namespace keel::firewall {
namespace {

using net::wire::load16;
using net::wire::load32;

constexpr uint32_t kPortBytes =
    4;  // the first 8 bytes of a quoted datagram hold both ports (RFC 792)
constexpr uint32_t kIcmp6HeaderSize = 8;  // type, code, checksum, a word (RFC 4443 section 2.1)
constexpr uint32_t kIcmpIdAt = 4;         // an echo's identifier (RFC 792, RFC 4443 section 4)
constexpr uint32_t kExtensionUnit = 8;    // RFC 8200 section 4: lengths in 8-octet units
constexpr uint32_t kFragmentHeaderSize = 8;
constexpr uint32_t kSrcAt = 8, kDstAt = 24;  // IPv6 addresses in the header (RFC 8200 section 3)
constexpr uint16_t kFragmentOffsetMask = 0xfff8, kMoreFragments = 1;

// The IPv6 header's addresses into a key or a packet's fields (word 0 and words 1-3).
void read_addresses6(const uint8_t* ip, uint32_t& src, uint32_t (&src6)[3], uint32_t& dst,
                     uint32_t (&dst6)[3]) {
  src = load32(ip + kSrcAt);
  dst = load32(ip + kDstAt);
  for (int w = 0; w < 3; ++w) {
    src6[w] = load32(ip + kSrcAt + 4 * (w + 1));
    dst6[w] = load32(ip + kDstAt + 4 * (w + 1));
  }
}

// The IPv6 extension header chain (RFC 8200 section 4), as far as the upper-layer header:
// hop-by-hop, destination options, routing and fragment headers, at most as many as the stack
// walks (net::Ip6::max_extension_headers). The firewall only reads the chain; the stack refused
// what it must (routing type 0, misplaced hop-by-hop) before the hooks.
struct Chain6 {
  uint8_t upper = 0;            // the upper-layer protocol
  uint32_t offset = 0;          // where its header starts
  bool fragment = false;        // a fragment header that is no atomic fragment (RFC 6946)
  bool later_fragment = false;  // offset != 0: no upper-layer header here
};
bool walk_chain6(const uint8_t* ip, size_t len, Chain6& out) {
  out.upper = ip[6];
  out.offset = net::wire::ip6_header_size;
  for (int count = 0;; ++count) {
    const uint8_t type = out.upper;
    if (type != net::wire::ip6_next_hop_by_hop && type != net::wire::ip6_next_destination &&
        type != net::wire::ip6_next_routing && type != net::wire::ip6_next_fragment)
      return true;
    if (count == net::Ip6::max_extension_headers || out.offset + kExtensionUnit > len) return false;
    const uint8_t* h = ip + out.offset;
    const uint32_t size =
        type == net::wire::ip6_next_fragment ? kFragmentHeaderSize : (h[1] + 1u) * kExtensionUnit;
    if (out.offset + size > len) return false;
    if (type == net::wire::ip6_next_fragment) {
      const uint16_t field = load16(h + 2);
      if ((field & kFragmentOffsetMask) || (field & kMoreFragments)) out.fragment = true;
      if (field & kFragmentOffsetMask) out.later_fragment = true;
    }
    out.upper = h[0];
    out.offset += size;
    if (out.later_fragment) return true;
  }
}

// The tuple of an IPv6 packet quoted in an ICMPv6 error: its header, extension headers as far
// as they were quoted, and its ports or echo identifier.
bool read_quoted6(const uint8_t* ip, size_t len, FlowKey& key) {
  if (len < net::wire::ip6_header_size || (ip[0] >> 4) != net::wire::ip6_version) return false;
  Chain6 chain;
  if (!walk_chain6(ip, len, chain) || chain.later_fragment) return false;
  key = FlowKey{};
  key.family = kFamilyIp6;
  read_addresses6(ip, key.src, key.src6, key.dst, key.dst6);
  key.proto = chain.upper;
  const uint8_t* l4 = ip + chain.offset;
  const size_t l4_len = len - chain.offset;
  if (has_ports(key.proto)) {
    if (l4_len < kPortBytes) return false;
    key.sport = load16(l4);
    key.dport = load16(l4 + 2);
  } else if (key.proto == kProtoIcmp6) {
    if (l4_len < kIcmp6HeaderSize || icmp6_reply_type(l4[0]) < 0) return false;
    key.sport = load16(l4 + kIcmpIdAt);
    key.dport = l4[0];
  }
  return true;
}

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

void read_icmp6(const uint8_t* l4, size_t len, PacketInfo& out) {
  if (len < kIcmp6HeaderSize) {
    out.malformed = Malformed::truncated_l4;
    return;
  }
  out.fields.icmp_type = l4[0];
  out.fields.icmp_code = l4[1];
  out.icmp_id = load16(l4 + kIcmpIdAt);
  out.key.sport = out.icmp_id;
  out.key.dport = l4[0];
  out.icmp_error = is_icmp6_error(l4[0]);
  if (out.icmp_error) {
    out.inner_offset = out.header_len + kIcmp6HeaderSize;
    out.inner_ok = read_quoted6(l4 + kIcmp6HeaderSize, len - kIcmp6HeaderSize, out.inner);
  }
}

// The transport header at `l4` (l4_len bytes): TCP, UDP, or the family's ICMP.
void read_transport(const uint8_t* l4, PacketInfo& out) {
  const bool ip6 = out.key.family == kFamilyIp6;
  switch (out.key.proto) {
    case kProtoTcp:
      read_tcp(l4, out.l4_len, out);
      break;
    case kProtoUdp:
      read_udp(l4, out.l4_len, out);
      break;
    case kProtoIcmp:
      if (!ip6) read_icmp(l4, out.l4_len, out);
      break;
    case kProtoIcmp6:
      if (ip6) read_icmp6(l4, out.l4_len, out);
      break;
    default:
      break;
  }
}

bool read_packet6(const uint8_t* ip, size_t len, PacketInfo& out) {
  net::wire::Ip6View<const uint8_t> v(ip, len);
  if (v.check() != net::wire::Ip6Error::none) return false;
  const size_t total = net::wire::ip6_header_size + v.payload_length();
  Chain6 chain;
  if (!walk_chain6(ip, total, chain)) return false;
  out.header_len = chain.offset;
  out.l4_len = static_cast<uint32_t>(total - chain.offset);
  Packet& f = out.fields;
  f.family = out.key.family = kFamilyIp6;
  read_addresses6(ip, f.saddr, f.saddr6, f.daddr, f.daddr6);
  read_addresses6(ip, out.key.src, out.key.src6, out.key.dst, out.key.dst6);
  f.proto = out.key.proto = chain.upper;
  if (chain.fragment) {
    out.malformed = Malformed::fragment;
    if (chain.later_fragment) return true;  // no transport header here
  }
  read_transport(ip + out.header_len, out);
  return true;
}

}  // namespace

bool read_packet(const uint8_t* ip, size_t len, PacketInfo& out) {
  out = PacketInfo{};
  if (len >= 1 && (ip[0] >> 4) == net::wire::ip6_version) return read_packet6(ip, len, out);
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
  read_transport(ip + out.header_len, out);
  return true;
}

}  // namespace keel::firewall
