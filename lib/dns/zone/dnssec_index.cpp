// index_dnssec: the NSEC and NSEC3 owners of each signed zone, sorted once
// at load so that a covering record is a binary search away.
#include <algorithm>

#include "keel/dns/catalog.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/dnssec_zone.hpp"
#include "keel/dns/name.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

int base32hex_value(uint8_t c) {
  c = ascii_lower(c);
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'v') return c - 'a' + 10;
  return -1;
}

// The hash an NSEC3 owner's first label spells (RFC 5155 §3: base32hex).
bool owner_hash(std::string_view name, Nsec3Hash& out) {
  constexpr std::size_t encoded = 32;  // 20 octets in base32hex, no padding
  if (name.empty() || octet(name, 0) != encoded) return false;
  uint32_t bits = 0;
  int count = 0;
  std::size_t at = 0;
  for (std::size_t i = 1; i <= encoded; ++i) {
    const int v = base32hex_value(octet(name, i));
    if (v < 0) return false;
    bits = (bits << 5 | uint32_t(v)) & 0xffff;
    count += 5;
    if (count >= 8) {
      count -= 8;
      out[at++] = uint8_t(bits >> count);
    }
  }
  return at == nsec3_hash_size;
}

// RFC 5155 §4.2: hash algorithm, flags, iterations, salt length, salt.
void read_nsec3param(const Catalog& c, uint32_t apex, DnssecZone& z) {
  const RRset* param = c.find_rrset(apex, rr_type::nsec3param);
  if (param == nullptr) return;
  c.for_each_rr(*param, [&](const RRView& rr) {
    constexpr std::size_t fixed = 5;
    if (rr.rdata.size() < fixed || octet(rr.rdata, 0) != nsec3_sha1 || octet(rr.rdata, 1) != 0)
      return true;  // RFC 5155 §4.1.2: flags 0 is the parameter set in use
    z.nsec3 = true;
    z.iterations = load16(rr.rdata, 2);
    z.salt = std::string(rr.rdata.substr(fixed, octet(rr.rdata, 4)));
    return false;
  });
}

}  // namespace

std::vector<DnssecZone> index_dnssec(const Catalog& c) {
  std::vector<DnssecZone> zones(c.zone_count());
  bool any = false;
  for (uint16_t z = 0; z < c.zone_count(); ++z) {
    const uint32_t apex = c.zone(z).apex;
    zones[z].secure = c.find_rrset(apex, rr_type::rrsig) != nullptr;
    if (zones[z].secure) read_nsec3param(c, apex, zones[z]);
    any |= zones[z].secure;
  }
  if (!any) return {};
  for (uint32_t n = 0; n < c.node_count(); ++n) {
    DnssecZone& z = zones[c.node(n).zone];
    if (!z.secure) continue;
    if (c.find_rrset(n, rr_type::nsec)) z.nsec.push_back(n);
    Nsec3Owner owner{};
    owner.node = n;
    if (z.nsec3 && c.find_rrset(n, rr_type::nsec3) && owner_hash(c.name(n), owner.hash))
      z.hashed.push_back(owner);
  }
  for (DnssecZone& z : zones) {
    std::sort(z.nsec.begin(), z.nsec.end(),
              [&](uint32_t a, uint32_t b) { return canonical_compare(c.name(a), c.name(b)) < 0; });
    std::sort(z.hashed.begin(), z.hashed.end(),
              [](const Nsec3Owner& a, const Nsec3Owner& b) { return a.hash < b.hash; });
    z.nsec3 = z.nsec3 && !z.hashed.empty();
    z.nsec.shrink_to_fit();
    z.hashed.shrink_to_fit();
  }
  return zones;
}

}  // namespace keel::dns
