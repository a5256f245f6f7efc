// What the RDATA of each served type holds, field by field: the one table that
// checks wire RDATA, finds the names to compress or decompress, and names the
// types in zone files. Types not in the table are opaque (RFC 3597 §4).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace keel::dns {

enum class Field : uint8_t {
  end,
  u8,
  u16,
  u32,
  ipv4,             // 4 octets
  ipv6,             // 16 octets
  compressed_name,  // RFC 1035 types: may be compressed (RFC 3597 §4)
  name,             // never compressed (SRV, NAPTR, DNAME: RFC 2782, 3403, 6672 §2.5)
  char_string,      // one <character-string> (RFC 1035 §3.3)
  char_strings,     // one or more, to the end (TXT, SPF)
  caa_tag,          // RFC 8659 §4.1: 1..255 octets, length-prefixed
  rest,             // opaque octets to the end, possibly none
  rest_nonempty,    // opaque octets to the end, at least one (digests, fingerprints)
  // DNSSEC fields (RFC 4034, RFC 5155): on the wire the same as one of the
  // above, told apart for their presentation forms.
  algorithm,    // u8; a mnemonic or a number (RFC 4034 Appendix A.1)
  rrtype,       // u16; a type mnemonic (RRSIG's type covered)
  time,         // u32; YYYYMMDDHHmmSS or seconds (RFC 4034 §3.2)
  base64,       // rest_nonempty; base64, may be split into several tokens
  salt,         // u8 length + octets; hex or "-" for none (RFC 5155 §3.3)
  hash32,       // u8 length + at least one octet; base32hex (RFC 5155 §3.3)
  type_bitmap,  // to the end: windows of RFC 4034 §4.1.2, possibly none; type mnemonics
};

inline constexpr std::size_t max_fields = 10;  // RRSIG's nine and the end

struct TypeInfo {
  uint16_t type;
  std::string_view mnemonic;
  std::array<Field, max_fields> fields;  // ends with Field::end
};

// The table entry for `type`, or nullptr for an opaque type.
const TypeInfo* type_info(uint16_t type);
// By mnemonic, case-insensitive ("aaaa" finds AAAA); nullptr if unknown.
const TypeInfo* type_info(std::string_view mnemonic);
// "A", "TYPE65280" (RFC 3597 §5).
std::string type_name(uint16_t type);

// True if `rdata` is exactly what `type` allows (names uncompressed).
bool rdata_valid(uint16_t type, std::string_view rdata);
// Offset of the n-th field inside `rdata` (which must be valid), e.g. the
// exchange of an MX is field 1. Returns rdata.size() if there is no such field.
std::size_t field_offset(uint16_t type, std::string_view rdata, std::size_t n);
// True if RDATA of `type` holds a name that may be compressed on output.
bool has_compressed_names(uint16_t type);

}  // namespace keel::dns
