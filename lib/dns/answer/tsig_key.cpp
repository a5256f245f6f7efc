// TSIG keys (RFC 8945 §4): `ALGORITHM:NAME:BASE64`, as dig -y and NSD's `key:` clauses take
// them.
#include <mbedtls/base64.h>

#include <vector>

#include "answer/tsig.hpp"
#include "answer/tsig_algorithms.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"

namespace keel::dns {
namespace {

using namespace tsig_detail;

// RFC 4648 §4 with its padding, by mbed TLS (already the image's HMACs); false on anything else.
bool decode_base64(std::string_view text, std::vector<uint8_t>& out) {
  out.assign(text.size() / 4 * 3 + 3, 0);
  std::size_t written = 0;
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  if (mbedtls_base64_decode(out.data(), out.size(), &written, in, text.size()) != 0) {
    out.clear();
    return false;
  }
  out.resize(written);
  return true;
}

}  // namespace

std::string tsig_key_name(std::string_view text) {
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  if (text.empty()) return {};
  std::string wire;
  while (true) {
    const std::size_t dot = text.find('.');
    const std::string_view label = text.substr(0, dot);
    if (label.empty() || label.size() > max_label_length) return {};
    wire.push_back(char(label.size()));
    for (char c : label) {
      if (c == '\\' || c <= ' ' || c > '~') return {};  // no escapes in key names
      wire.push_back(char(ascii_lower(uint8_t(c))));
    }
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  wire.push_back('\0');
  return wire.size() > max_name_length ? std::string() : wire;
}

std::string parse_tsig_key(std::string_view text, TsigKey& out) {
  const std::size_t first = text.find(':');
  const std::size_t second = first == std::string_view::npos ? first : text.find(':', first + 1);
  if (second == std::string_view::npos)
    return "'" + std::string(text) + "' is not ALGORITHM:NAME:SECRET";
  const std::string_view algorithm = text.substr(0, first);
  const Algorithm* found = nullptr;
  for (const Algorithm& a : algorithms)
    if (a.text == algorithm) found = &a;
  if (found == nullptr)
    return "algorithm '" + std::string(algorithm) +
           "' is not hmac-sha1, hmac-sha256 or hmac-sha512";
  out.algorithm = found->id;
  out.name = tsig_key_name(text.substr(first + 1, second - first - 1));
  if (out.name.empty())
    return "'" + std::string(text.substr(first + 1, second - first - 1)) + "' is not a key name";
  if (!decode_base64(text.substr(second + 1), out.secret) || out.secret.empty())
    return "the secret of key '" + std::string(text.substr(first + 1, second - first - 1)) +
           "' is not base64";
  return {};
}

}  // namespace keel::dns
