// IPv6 fragments (RFC 8200 §4.5): the checks that answer a fragment with
// ICMPv6 before it goes to the reassembly store both families share
// (src/net/fragments/, decision 0132), and source fragmentation of the
// datagrams this host sends.
#include <sys/random.h>

#include <algorithm>
#include <cstring>

#include "ip6.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

constexpr uint32_t fragment_header_size = 8;
constexpr uint32_t fragment_unit = 8;  // offsets count 8 bytes
constexpr uint32_t payload_length_at = 4;
constexpr uint32_t fragment_offset_at = 2;  // in the Fragment header
constexpr uint16_t offset_mask = 0xfff8, more_flag = 1;

// Whether the fragmentable part of fragment zero (`p`, `size` bytes, from
// `at` on, the first header named `next`) holds every extension header and
// the upper-layer header (RFC 7112 §5): as Linux checks it, 20 bytes of
// TCP, 8 of UDP and ICMPv6, nothing of other protocols; behind a later
// fragment of a fragment none is due (a nested fragment is refused after
// reassembly).
bool holds_header_chain(const uint8_t* p, uint32_t size, uint32_t at, uint8_t next) {
  for (int i = 0; i <= Ip6::max_extension_headers; ++i) {
    bool extension = next == wire::ip6_next_hop_by_hop || next == wire::ip6_next_destination ||
                     next == wire::ip6_next_routing || next == wire::ip6_next_fragment;
    if (!extension) break;
    if (at + fragment_unit > size) return false;
    if (next == wire::ip6_next_fragment && (wire::load16(p + at + 2) & offset_mask) != 0)
      return true;
    uint32_t len =
        next == wire::ip6_next_fragment ? fragment_header_size : (uint32_t(p[at + 1]) + 1) * 8;
    next = p[at];
    at += len;
  }
  constexpr uint32_t tcp_header = 20, udp_header = 8;
  uint32_t upper = next == wire::ip_protocol_tcp                                   ? tcp_header
                   : next == wire::ip_protocol_udp || next == wire::ip6_next_icmp6 ? udp_header
                                                                                   : 0;
  return at + upper <= size;
}

}  // namespace

PacketPtr Ip6::reassemble(InterfaceId in, PacketPtr packet, bool to_multicast, const Chain& chain) {
  Ip6Counters& c = parts_.counters.ip6;
  const uint8_t* p = packet->data();
  uint32_t size = uint32_t(packet->size());
  uint32_t at = chain.fragment_at;
  uint16_t field = wire::load16(p + at + fragment_offset_at);
  uint32_t offset = field & offset_mask;
  bool more = field & more_flag;
  uint32_t len = size - at - fragment_header_size;
  if (more && len % fragment_unit != 0) {
    // §4.5: discarded, parameter problem code 0 at the payload length.
    ++c.rx_fragments;
    ++c.drop_fragment_bad;
    parameter_problem(*packet, in, wire::icmp6::erroneous_header, payload_length_at);
    return nullptr;
  }
  if (at - wire::ip6_header_size + offset + len > wire::ip6_max_payload) {
    // §4.5: the whole would pass 65535 bytes ("ping of death"): parameter
    // problem code 0 at the fragment offset.
    ++c.rx_fragments;
    ++c.drop_fragment_too_big;
    parameter_problem(*packet, in, wire::icmp6::erroneous_header, at + fragment_offset_at);
    return nullptr;
  }
  if (offset == 0 && !holds_header_chain(p, size, at + fragment_header_size, p[at])) {
    // §4.5, RFC 7112 §5: parameter problem code 3, pointer zero.
    ++c.rx_fragments;
    ++c.drop_fragment_incomplete_chain;
    parameter_problem(*packet, in, wire::icmp6::incomplete_header_chain, 0);
    return nullptr;
  }
  PacketPtr whole = reassembly_.add6(std::move(packet), {at, chain.next_header_at, to_multicast},
                                     parts_.time.now());
  parts_.time.wake_by(reassembly_.next_deadline());
  return whole;
}

// RFC 7739 §5.3: a keyed hash of the addresses and a counter. Unlike a
// global counter it tells an observer nothing about what else we send, and
// unlike one counter per destination it needs no table.
uint32_t Ip6::next_identification(const ip6::Addr& src, const ip6::Addr& dst) {
  if (!identification_keyed_) {
    // Weak entropy still beats a fixed key; a short read leaves part zero.
    if (getrandom(&identification_key_, sizeof identification_key_, 0) !=
        ssize_t(sizeof identification_key_))
      identification_key_.k1 ^= 0x9e3779b97f4a7c15ull;
    identification_keyed_ = true;
  }
  uint8_t input[2 * 16 + 8];
  std::memcpy(input, src.bytes.data(), 16);
  std::memcpy(input + 16, dst.bytes.data(), 16);
  uint64_t n = identification_counter_++;
  std::memcpy(input + 32, &n, sizeof n);
  return uint32_t(keel::util::siphash13(identification_key_, input, sizeof input));
}

// Copies slices of the datagram into fresh buffers of the link's pool, each
// the IPv6 header, a Fragment header and a multiple of 8 bytes (but the
// last), at most `mtu`: the path MTU (RFC 8200 §4.5, RFC 8201). Our
// datagrams carry no extension headers: the whole payload is the
// fragmentable part.
Status Ip6::fragment(Link& link, const ip6::Addr& next_hop, PacketPtr packet, uint32_t mtu) {
  Ip6Counters& c = parts_.counters.ip6;
  const uint8_t* ip = packet->data();
  wire::Ip6View<const uint8_t> v(ip, packet->size());
  uint32_t len = uint32_t(packet->size()) - wire::ip6_header_size;
  const uint8_t* data = ip + wire::ip6_header_size;
  uint32_t id = next_identification(v.src(), v.dst());
  constexpr uint32_t headers = wire::ip6_header_size + fragment_header_size;
  for (uint32_t offset = 0; offset < len;) {
    PacketPtr frag = link.allocate();
    if (!frag) {
      ++c.drop_no_buffer;
      return Status::no_buffer;
    }
    uint32_t room = std::min<uint32_t>(mtu, frag->tailroom()) - headers;
    uint32_t chunk = std::min(len - offset, room & ~(fragment_unit - 1));
    if (chunk == 0) {
      ++c.drop_no_buffer;
      return Status::no_buffer;
    }
    bool more = offset + chunk < len;
    uint8_t* out = frag->append(headers + chunk);
    std::memcpy(out, ip, wire::ip6_header_size);
    wire::store16(out + payload_length_at, uint16_t(fragment_header_size + chunk));
    uint8_t* f = out + wire::ip6_header_size;
    f[0] = ip[6];  // the datagram's next header
    f[1] = 0;      // reserved
    wire::store16(f + fragment_offset_at, uint16_t(offset | (more ? more_flag : 0)));
    wire::store32(f + 4, id);
    out[6] = wire::ip6_next_fragment;
    std::memcpy(out + headers, data + offset, chunk);
    ++c.tx_fragments;
    link.transmit_ip6(std::move(frag), next_hop);
    offset += chunk;
  }
  return Status::ok;
}

}  // namespace net
