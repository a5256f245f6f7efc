#include "ra.hpp"

#include <cstring>
#include <string>

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
constexpr std::size_t dns_lifetime_at = 4;             // RFC 8106 §5.1, §5.2
constexpr std::size_t max_label = 63, max_name = 253;  // RFC 1035 §2.3.4 (as text)

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

// RFC 8106 §5.1: a lifetime, then addresses, 16 bytes each (length 3, 5, ...).
bool read_rdnss(const uint8_t* o, std::size_t size, RaRepr& out) {
  constexpr std::size_t min_size = nd::dns_option_header + 16;
  if (size < min_size || (size - nd::dns_option_header) % 16 != 0) return false;
  uint32_t lifetime = wire::load32(o + dns_lifetime_at);
  for (std::size_t at = nd::dns_option_header; at < size; at += 16) {
    ip6::Addr a;
    std::memcpy(a.bytes.data(), o + at, a.bytes.size());
    if (a.is_any() || ip6addr::is_multicast(a) || ip6addr::is_loopback(a)) return false;
    if (out.dns_server_count < RaRepr::max_dns)
      out.dns_servers[out.dns_server_count++] = {a, lifetime};
  }
  return true;
}

bool is_label_char(uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

// RFC 8106 §5.2: a lifetime, then domain names as RFC 1035 §3.1 encodes
// them, uncompressed, one after another, and zero bytes to the end. A name
// that is not plain labels makes the option invalid.
bool read_dnssl(const uint8_t* o, std::size_t size, RaRepr& out) {
  if (size < 2 * nd::option_unit) return false;  // length 2 at least
  uint32_t lifetime = wire::load32(o + dns_lifetime_at);
  std::size_t first = out.search_domain_count;
  for (std::size_t i = nd::dns_option_header; i < size;) {
    if (o[i] == 0) {  // padding: zeros to the end
      for (; i < size; ++i)
        if (o[i] != 0) return false;
      break;
    }
    std::string name;
    for (;;) {
      if (i >= size) return false;  // a name must end with the root label
      std::size_t len = o[i++];
      if (len == 0) break;
      if (len > max_label || len > size - i) return false;  // also a compression pointer
      if (!name.empty()) name += '.';
      for (std::size_t k = 0; k < len; ++k) {
        if (!is_label_char(o[i + k])) return false;
        name += char(o[i + k]);
      }
      i += len;
      if (name.size() > max_name) return false;
    }
    if (out.search_domain_count < RaRepr::max_dns)
      out.search_domains[out.search_domain_count++] = {std::move(name), lifetime};
  }
  return out.search_domain_count > first || first == RaRepr::max_dns;
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
      case nd::option_rdnss: {
        std::size_t before = out.dns_server_count;
        if (!read_rdnss(o, size, out)) {
          out.dns_server_count = before;  // all of the option or none of it
          ++out.dns_options_ignored;
        }
        break;
      }
      case nd::option_dnssl: {
        std::size_t before = out.search_domain_count;
        if (!read_dnssl(o, size, out)) {
          for (std::size_t k = before; k < out.search_domain_count; ++k) out.search_domains[k] = {};
          out.search_domain_count = before;
          ++out.dns_options_ignored;
        }
        break;
      }
      default:
        break;  // §4.6: options we do not know are skipped
    }
    i += size;
  }
  return RaError::none;
}

}  // namespace net
