// The RDATA layout table and the checks built on it.
#include "keel/dns/rdata.hpp"

#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"

namespace keel::dns {
namespace {

using F = Field;
constexpr F E = F::end;

constexpr TypeInfo types[] = {
    {rr_type::a, "A", {F::ipv4, E}},
    {rr_type::ns, "NS", {F::compressed_name, E}},
    {rr_type::cname, "CNAME", {F::compressed_name, E}},
    {rr_type::soa,
     "SOA",
     {F::compressed_name, F::compressed_name, F::u32, F::u32, F::u32, F::u32, F::u32, E}},
    {rr_type::ptr, "PTR", {F::compressed_name, E}},
    // RFC 1035 §3.3.2, §3.3.7; MINFO's names are compressed as NSD does (RFC 3597 §4).
    {rr_type::hinfo, "HINFO", {F::char_string, F::char_string, E}},
    {rr_type::minfo, "MINFO", {F::compressed_name, F::compressed_name, E}},
    {rr_type::mx, "MX", {F::u16, F::compressed_name, E}},
    {rr_type::txt, "TXT", {F::char_strings, E}},
    {rr_type::rp, "RP", {F::name, F::name, E}},
    {rr_type::afsdb, "AFSDB", {F::u16, F::name, E}},
    {rr_type::aaaa, "AAAA", {F::ipv6, E}},
    {rr_type::srv, "SRV", {F::u16, F::u16, F::u16, F::name, E}},
    {rr_type::naptr,
     "NAPTR",
     {F::u16, F::u16, F::char_string, F::char_string, F::char_string, F::name, E}},
    {rr_type::kx, "KX", {F::u16, F::name, E}},
    {rr_type::dname, "DNAME", {F::name, E}},
    {rr_type::ds, "DS", {F::u16, F::algorithm, F::u8, F::rest_nonempty, E}},
    {rr_type::sshfp, "SSHFP", {F::u8, F::u8, F::rest_nonempty, E}},
    {rr_type::tlsa, "TLSA", {F::u8, F::u8, F::u8, F::rest_nonempty, E}},
    {rr_type::smimea, "SMIMEA", {F::u8, F::u8, F::u8, F::rest_nonempty, E}},
    {rr_type::cds, "CDS", {F::u16, F::algorithm, F::u8, F::rest_nonempty, E}},
    // RFC 4034 §2-4, RFC 5155 §3-4, RFC 7344 §3.2.
    {rr_type::rrsig,
     "RRSIG",
     {F::rrtype, F::algorithm, F::u8, F::u32, F::time, F::time, F::u16, F::name, F::base64}},
    {rr_type::nsec, "NSEC", {F::name, F::type_bitmap, E}},
    {rr_type::dnskey, "DNSKEY", {F::u16, F::u8, F::algorithm, F::base64, E}},
    {rr_type::nsec3, "NSEC3", {F::u8, F::u8, F::u16, F::salt, F::hash32, F::type_bitmap, E}},
    {rr_type::nsec3param, "NSEC3PARAM", {F::u8, F::u8, F::u16, F::salt, E}},
    {rr_type::cdnskey, "CDNSKEY", {F::u16, F::u8, F::algorithm, F::base64, E}},
    {rr_type::spf, "SPF", {F::char_strings, E}},
    {rr_type::uri, "URI", {F::u16, F::u16, F::rest, E}},  // target: one string, no length octet
    {rr_type::caa, "CAA", {F::u8, F::caa_tag, F::rest, E}},
};

// RFC 4034 §4.1.2: windows in increasing order, each 1..32 octets long.
// Returns the length (all of what is left) or 0 if malformed or empty.
std::size_t bitmap_length(std::string_view rdata, std::size_t pos) {
  constexpr std::size_t max_window_octets = 32;
  int last_window = -1;
  for (std::size_t p = pos; p < rdata.size();) {
    if (rdata.size() - p < 2) return 0;
    const int window = octet(rdata, p);
    const std::size_t length = octet(rdata, p + 1);
    if (window <= last_window || length == 0 || length > max_window_octets ||
        rdata.size() - p - 2 < length)
      return 0;
    last_window = window;
    p += 2 + length;
  }
  return rdata.size() - pos;
}

// Length of the field at `pos`, or 0 if it does not fit or is malformed.
std::size_t field_length(Field field, std::string_view rdata, std::size_t pos) {
  const std::size_t left = rdata.size() - pos;
  switch (field) {
    case F::u8:
    case F::algorithm:
      return left >= 1 ? 1 : 0;
    case F::u16:
    case F::rrtype:
      return left >= 2 ? 2 : 0;
    case F::salt:
      return left >= 1 && left >= 1u + octet(rdata, pos) ? 1u + octet(rdata, pos) : 0;
    case F::hash32:
      return field_length(F::caa_tag, rdata, pos);  // the same: a length of at least 1
    case F::type_bitmap:
      return bitmap_length(rdata, pos);
    case F::u32:
    case F::time:
    case F::ipv4:
      return left >= 4 ? 4 : 0;
    case F::ipv6:
      return left >= 16 ? 16 : 0;
    case F::compressed_name:
    case F::name:
      return name_length(rdata.substr(pos));
    case F::char_string:
      return left >= 1 && left >= 1u + octet(rdata, pos) ? 1u + octet(rdata, pos) : 0;
    case F::caa_tag:
      return left >= 1 && octet(rdata, pos) >= 1 && left >= 1u + octet(rdata, pos)
                 ? 1u + octet(rdata, pos)
                 : 0;
    case F::char_strings: {
      std::size_t p = pos;
      while (p < rdata.size()) {
        const std::size_t n = field_length(F::char_string, rdata, p);
        if (n == 0) return 0;
        p += n;
      }
      return p - pos;  // 0 when empty: at least one string is required
    }
    case F::rest:
    case F::rest_nonempty:
    case F::base64:
      return left;
    case F::end:
      return 0;
  }
  return 0;
}

}  // namespace

const TypeInfo* type_info(uint16_t type) {
  for (const TypeInfo& t : types)
    if (t.type == type) return &t;
  return nullptr;
}

const TypeInfo* type_info(std::string_view mnemonic) {
  for (const TypeInfo& t : types) {
    if (t.mnemonic.size() != mnemonic.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < mnemonic.size() && same; ++i)
      same = ascii_lower(octet(t.mnemonic, i)) == ascii_lower(octet(mnemonic, i));
    if (same) return &t;
  }
  return nullptr;
}

std::string type_name(uint16_t type) {
  if (const TypeInfo* t = type_info(type)) return std::string(t->mnemonic);
  return "TYPE" + std::to_string(type);
}

bool rdata_valid(uint16_t type, std::string_view rdata) {
  if (rdata.size() > max_message_size) return false;
  const TypeInfo* info = type_info(type);
  if (info == nullptr) return true;
  std::size_t pos = 0;
  for (Field f : info->fields) {
    if (f == F::end) break;
    const std::size_t n = field_length(f, rdata, pos);
    const bool may_be_empty = f == F::rest || f == F::type_bitmap;
    if (n == 0 && !may_be_empty) return false;
    pos += n;
  }
  return pos == rdata.size();
}

std::size_t field_offset(uint16_t type, std::string_view rdata, std::size_t n) {
  const TypeInfo* info = type_info(type);
  if (info == nullptr) return rdata.size();
  std::size_t pos = 0;
  for (std::size_t i = 0; i < max_fields && info->fields[i] != F::end; ++i) {
    if (i == n) return pos;
    pos += field_length(info->fields[i], rdata, pos);
  }
  return rdata.size();
}

bool has_compressed_names(uint16_t type) {
  const TypeInfo* info = type_info(type);
  if (info == nullptr) return false;
  for (Field f : info->fields)
    if (f == F::compressed_name) return true;
  return false;
}

}  // namespace keel::dns
