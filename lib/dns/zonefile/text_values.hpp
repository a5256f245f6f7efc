// Readers for the presentation formats of single RDATA fields and owner
// names (RFC 1035 §5.1 and the RFC of each type). Each returns an empty
// string on success or the error to report at the token.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace keel::dns::zonefile {

using Error = std::string;

// \DDD and \X escapes resolved (RFC 1035 §5.1).
Error unescape(std::string_view raw, std::string& out);
// A domain name: "@" is `origin`; a name without a trailing (unescaped) dot
// is relative to `origin` (wire format).
Error parse_name(std::string_view raw, std::string_view origin, std::string& out);
// Decimal, at most `max`.
Error parse_number(std::string_view text, uint32_t max, uint32_t& out);
// A TTL or SOA timer: seconds, or BIND's unit form ("1w2d3h4m5s", any case).
// RFC 2181 §8: at most 2^31 - 1.
Error parse_ttl(std::string_view text, uint32_t& out);
// Dotted quad, each part 0..255 without leading zeros.
Error parse_ipv4(std::string_view text, std::string& out);
Error parse_ipv6(std::string_view text, std::string& out);
// Hex digits (appended as octets); the count must be even.
Error parse_hex(std::string_view text, std::string& out);
// One <character-string>: at most 255 octets after unescaping.
Error parse_character_string(std::string_view raw, std::string& out);

bool is_decimal(std::string_view text);
// ASCII letters compared without case (mnemonics).
bool same_text(std::string_view a, std::string_view b);

}  // namespace keel::dns::zonefile
