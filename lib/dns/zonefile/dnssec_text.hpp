// Readers for the presentation forms of the DNSSEC RDATA fields (RFC 4034
// §2.2, §3.2, §4.2, §5.3; RFC 5155 §3.3, §4.3). Each returns an empty string
// on success or the error to report at the token, as text_values.hpp does.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zonefile/text_values.hpp"

namespace keel::dns::zonefile {

// An algorithm mnemonic ("ECDSAP256SHA256", any case) or number, one octet.
Error parse_algorithm(std::string_view text, std::string& out);
// Base64 (RFC 4648 §4), the tokens of a field joined first.
Error parse_base64(std::string_view text, std::string& out);
// Base32hex without padding (RFC 4648 §7), case-insensitive; appends the
// length octet, then the octets.
Error parse_base32hex(std::string_view text, std::string& out);
// RRSIG times: YYYYMMDDHHmmSS in UTC, or seconds since 1970 (RFC 4034 §3.2).
Error parse_time(std::string_view text, std::string& out);
// An NSEC3 salt: "-" for none, else hex; appends the length octet first.
Error parse_salt(std::string_view text, std::string& out);
// The type bit map of RFC 4034 §4.1.2 for these types (any order, repeats allowed).
void append_type_bitmap(std::vector<uint16_t> types, std::string& out);

}  // namespace keel::dns::zonefile
