// Header rewriting for NAT (nat_rewrite.hpp).
#include "nat_rewrite.hpp"

#include "net/wire/checksum.hpp"
#include "net/wire/icmp4.hpp"
#include "net/wire/ip4.hpp"

namespace keel::firewall {
namespace {

using net::wire::checksum_update;
using net::wire::checksum_update32;
using net::wire::load16;
using net::wire::load32;
using net::wire::store16;
using net::wire::store32;

constexpr size_t kSrcOffset = 12, kDstOffset = 16;  // RFC 791 §3.1
constexpr size_t kTcpChecksum = 16, kUdpChecksum = 6, kIcmpChecksum = 2, kIcmpId = 4;
constexpr size_t kPortBytes = 2;

// A partial checksum field holds the pseudo-header sum itself, not its complement.
uint16_t update_partial32(uint16_t field, uint32_t from, uint32_t to) {
  return static_cast<uint16_t>(~checksum_update32(static_cast<uint16_t>(~field), from, to));
}

bool fits(size_t offset, size_t bytes, size_t len) { return offset + bytes <= len; }

}  // namespace

void fill_icmp_checksum(uint8_t* icmp, size_t len) {
  store16(icmp + kIcmpChecksum, 0);
  store16(icmp + kIcmpChecksum, net::wire::checksum(icmp, len));
}

bool rewrite(uint8_t* ip, size_t len, Manip manip, uint32_t address, uint16_t port, bool partial,
             Quoted quoted) {
  net::wire::Ip4View<uint8_t> v(ip, len);
  if (len < net::wire::ip4_header_min || v.header_len() < net::wire::ip4_header_min ||
      v.header_len() > len)
    return false;
  const size_t address_at = manip == Manip::src ? kSrcOffset : kDstOffset;
  const uint32_t old_address = load32(ip + address_at);
  store32(ip + address_at, address);
  store16(ip + 10, checksum_update32(v.header_checksum(), old_address, address));
  if (v.fragment_offset() != 0) return true;  // no transport header in this piece

  uint8_t* l4 = ip + v.header_len();
  size_t l4_len = len - v.header_len();
  if (quoted == Quoted::no && v.total_length() <= len) l4_len = v.total_length() - v.header_len();
  const size_t port_at = manip == Manip::src ? 0 : kPortBytes;
  switch (v.protocol()) {
    case kProtoTcp:
    case kProtoUdp: {
      if (!fits(port_at, kPortBytes, l4_len)) return true;
      const uint16_t old_port = load16(l4 + port_at);
      store16(l4 + port_at, port);
      const size_t sum_at = v.protocol() == kProtoTcp ? kTcpChecksum : kUdpChecksum;
      if (!fits(sum_at, 2, l4_len)) return true;
      uint16_t sum = load16(l4 + sum_at);
      if (v.protocol() == kProtoUdp && sum == 0 && !partial) return true;  // RFC 768: none sent
      if (partial) {
        // The device sums the header (the new port) itself; only the pseudo-header changed.
        sum = update_partial32(sum, old_address, address);
      } else {
        sum = checksum_update(checksum_update32(sum, old_address, address), old_port, port);
        if (v.protocol() == kProtoUdp && sum == 0) sum = 0xffff;  // RFC 768: 0 means none
      }
      store16(l4 + sum_at, sum);
      return true;
    }
    case kProtoIcmp: {
      if (!fits(kIcmpId, 2, l4_len) || icmp_reply_type(l4[0]) < 0) return true;
      const uint16_t old_id = load16(l4 + kIcmpId);
      store16(l4 + kIcmpId, port);
      store16(l4 + kIcmpChecksum, checksum_update(load16(l4 + kIcmpChecksum), old_id, port));
      return true;
    }
    default:
      return true;
  }
}

}  // namespace keel::firewall
