// TSIG keys (RFC 8945): a shared secret by name, as NSD's `key:` clause and
// BIND's `key` statement give them, written as dig -y takes them:
// "hmac-sha256:xfr-key:BASE64SECRET" (docs/dns.md, "TSIG").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel::dns {

// The HMACs RFC 8945 §6 makes mandatory or recommended; MD5 is not taken.
enum class TsigAlgorithm : uint8_t { hmac_sha1, hmac_sha256, hmac_sha512 };

struct TsigKey {
  std::string name;  // wire form, lower case
  TsigAlgorithm algorithm = TsigAlgorithm::hmac_sha256;
  std::vector<uint8_t> secret;
};

// RFC 8945 §3 error codes, in the TSIG record's Error field.
namespace tsig_error {
inline constexpr uint16_t badsig = 16;
inline constexpr uint16_t badkey = 17;
inline constexpr uint16_t badtime = 18;
inline constexpr uint16_t badtrunc = 22;
}  // namespace tsig_error

// "ALGORITHM:NAME:BASE64" (ALGORITHM hmac-sha1, hmac-sha256 or hmac-sha512);
// returns an empty string, or what is wrong.
std::string parse_tsig_key(std::string_view text, TsigKey& out);

// The key name's wire form, lower case, from its text ("xfr-key" or
// "xfr-key."); empty if it is not a name.
std::string tsig_key_name(std::string_view text);

}  // namespace keel::dns
