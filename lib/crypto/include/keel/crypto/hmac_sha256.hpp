#pragma once
// HMAC-SHA-256 (RFC 2104, FIPS 198-1 over FIPS 180-4's SHA-256) and SHA-256, from mbed TLS
// (Debian's libmbedtls-dev; docs/decisions/0052): Keel writes no cryptography of its own.
// The same archive links into images and into the Linux-process build.
#include <mbedtls/md.h>

#include <array>
#include <cstdint>
#include <span>

namespace keel::crypto {

inline constexpr std::size_t kSha256Bytes = 32;
using Sha256Digest = std::array<uint8_t, kSha256Bytes>;

// The MAC of `text` under `key` (any length; RFC 2104 §3 recommends at least 32 bytes here).
// Allocates mbed TLS's context for the call: for tools and tests.
Sha256Digest hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> text);

// One key's MACs, with mbed TLS's context (the hash state and the padded keys) allocated once,
// so computing a MAC allocates nothing: for a port that checks every datagram.
class HmacSha256 {
 public:
  explicit HmacSha256(std::span<const uint8_t> key);
  ~HmacSha256();
  HmacSha256(const HmacSha256&) = delete;
  HmacSha256& operator=(const HmacSha256&) = delete;
  Sha256Digest mac(std::span<const uint8_t> text);

 private:
  mbedtls_md_context_t context_;
};
// The digest of `text`.
Sha256Digest sha256(std::span<const uint8_t> text);
// True if a and b hold the same bytes, in a time that depends only on their length (so timing
// tells an attacker nothing about how much of a forged tag was right).
bool equal_in_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b);

}  // namespace keel::crypto
