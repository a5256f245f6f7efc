#include "ra.hpp"

#include <cstring>

#include "net/ip6/addr.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

namespace nd = wire::nd;

// §4.2's fixed part, after the ICMPv6 type, code and checksum.
constexpr std::size_t hop_limit_at = 4, lifetime_at = 6, reachable_at = 8, retrans_at = 12;
// §4.6.2's prefix option.
constexpr std::size_t prefix_length_at = 2, prefix_flags_at = 3, valid_at = 4, preferred_at = 8,
                      prefix_at = 16;
constexpr std::size_t mtu_at = 4;  // §4.6.4
constexpr uint8_t max_prefix_length = 128;

PrefixInfo read_prefix(const uint8_t* o) {
  PrefixInfo p;
  p.length = o[prefix_length_at];
  p.on_link = o[prefix_flags_at] & nd::prefix_on_link;
  p.autonomous = o[prefix_flags_at] & nd::prefix_autonomous;
  p.valid_s = wire::load32(o + valid_at);
  p.preferred_s = wire::load32(o + preferred_at);
  std::memcpy(p.prefix.bytes.data(), o + prefix_at, p.prefix.bytes.size());
  // §4.6.2: the bits past the prefix length are reserved; keep them out.
  for (std::size_t bit = p.length; bit < max_prefix_length; ++bit)
    p.prefix.bytes[bit / 8] &= uint8_t(~(0x80 >> (bit % 8)));
  return p;
}

}  // namespace

RaError parse_router_advertisement(const ip6::Addr& src, const uint8_t* m, std::size_t len,
                                   RaRepr& out) {
  out = RaRepr{};
  if (!ip6addr::is_link_local(src)) return RaError::bad_source;  // §6.1.2
  if (len < nd::ra_size) return RaError::bad_format;
  out.cur_hop_limit = m[hop_limit_at];
  out.router_lifetime_s = wire::load16(m + lifetime_at);
  out.reachable_ms = wire::load32(m + reachable_at);
  out.retrans_ms = wire::load32(m + retrans_at);
  for (std::size_t i = nd::ra_size; i < len;) {
    if (len - i < 2) return RaError::bad_format;
    std::size_t size = std::size_t(m[i + 1]) * nd::option_unit;
    if (size == 0 || size > len - i) return RaError::bad_format;  // §6.1.2: zero length
    const uint8_t* o = m + i;
    switch (o[0]) {
      case nd::option_source_mac: {
        if (size < nd::mac_option_size) return RaError::bad_format;
        ethernet::Addr mac = ethernet::Addr::from(o + 2);
        if (mac.is_multicast()) return RaError::bad_format;
        if (!out.source_mac) out.source_mac = mac;
        break;
      }
      case nd::option_prefix:
        if (size != nd::prefix_option_size || o[prefix_length_at] > max_prefix_length)
          return RaError::bad_format;
        if (out.prefix_count < RaRepr::max_prefixes) {
          out.prefixes[out.prefix_count++] = read_prefix(o);
        } else {
          ++out.prefixes_dropped;
        }
        break;
      case nd::option_mtu:
        if (size != nd::mtu_option_size) return RaError::bad_format;
        if (!out.mtu) out.mtu = wire::load32(o + mtu_at);
        break;
      default:
        break;  // §4.6: options we do not know are skipped
    }
    i += size;
  }
  return RaError::none;
}

}  // namespace net
