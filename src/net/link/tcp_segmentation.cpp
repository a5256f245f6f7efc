#include "tcp_segmentation.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "net/wire/checksum.hpp"
#include "net/wire/ethernet.hpp"
#include "net/wire/ip4.hpp"
#include "net/wire/ip6.hpp"
#include "net/wire/tcp.hpp"

namespace net {
namespace {

using namespace wire;

constexpr uint32_t ethertype_offset = 12;        // IEEE 802.3: after two MACs
constexpr uint32_t ip4_total_length_offset = 2;  // RFC 791 §3.1
constexpr uint32_t ip4_id_offset = 4;
constexpr uint32_t ip4_checksum_offset = 10;
constexpr uint32_t ip6_payload_length_offset = 4;  // RFC 8200 §3
constexpr uint32_t tcp_seq_offset = 4;             // RFC 9293 §3.1
constexpr uint32_t tcp_data_offset = 12;
constexpr uint32_t tcp_flags_offset = 13;

}  // namespace

bool segment_tcp(const Packet& frame, keel::delegate<void(std::span<const uint8_t>)> out) {
  const uint8_t* f = frame.data();
  const uint32_t size = frame.size(), ip = EthernetRepr::size, tcp = frame.csum_start;
  if (frame.gso_size == 0 || tcp < ip + ip4_header_min || tcp + tcp_header_min > size) return false;
  const uint16_t type = load16(f + ethertype_offset);
  const bool v4 = type == ethertype_ip4;
  if (!v4 && type != ethertype_ip6) return false;
  const uint32_t headers = tcp + (f[tcp + tcp_data_offset] >> 4) * 4u;
  if (headers > size || headers < tcp + tcp_header_min) return false;
  // The partial field holds the pseudo-header sum for the whole TCP length:
  // take that length out and put each segment's in (ones' complement).
  const uint32_t pseudo = load16(f + tcp + tcp_checksum_offset);
  const uint16_t whole_tcp_len = uint16_t(size - tcp);
  const uint32_t payload = size - headers, step = frame.gso_size;
  const uint32_t seq = load32(f + tcp + tcp_seq_offset);
  const uint16_t id = v4 ? load16(f + ip + ip4_id_offset) : 0;
  const uint8_t flags = f[tcp + tcp_flags_offset];
  std::vector<uint8_t> segment(headers + std::min(step, payload));
  for (uint32_t offset = 0, n = 0; offset < payload || n == 0; offset += step, ++n) {
    uint32_t len = std::min(step, payload - offset);
    bool last = offset + len >= payload;
    segment.resize(headers + len);
    std::memcpy(segment.data(), f, headers);
    std::memcpy(segment.data() + headers, f + headers + offset, len);
    uint8_t* s = segment.data();
    if (v4) {
      store16(s + ip + ip4_total_length_offset, uint16_t(headers - ip + len));
      store16(s + ip + ip4_id_offset, uint16_t(id + n));
      store16(s + ip + ip4_checksum_offset, 0);
      store16(s + ip + ip4_checksum_offset, checksum(s + ip, tcp - ip));
    } else {
      store16(s + ip + ip6_payload_length_offset,
              uint16_t(headers - tcp + len + tcp - ip - ip6_header_size));
    }
    store32(s + tcp + tcp_seq_offset, seq + offset);
    uint8_t keep = flags;
    if (n > 0) keep &= uint8_t(~tcp_flag::cwr);
    if (!last) keep &= uint8_t(~(tcp_flag::fin | tcp_flag::psh));
    s[tcp + tcp_flags_offset] = keep;
    uint16_t tcp_len = uint16_t(headers - tcp + len);
    uint32_t sum = pseudo + uint16_t(~whole_tcp_len) + tcp_len;
    store16(s + tcp + tcp_checksum_offset, 0);
    store16(s + tcp + tcp_checksum_offset,
            uint16_t(~checksum_fold(checksum_add(sum, s + tcp, tcp_len))));
    out(std::span<const uint8_t>(s, headers + len));
    if (last) break;
  }
  return true;
}

uint32_t tcp_segment_size(const Packet& packet) {
  const uint32_t tcp = packet.csum_start;
  if (tcp + tcp_data_offset >= packet.size()) return packet.size();
  return tcp + (packet.data()[tcp + tcp_data_offset] >> 4) * 4u + packet.gso_size;
}

}  // namespace net
