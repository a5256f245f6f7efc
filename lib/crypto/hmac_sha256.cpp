// HMAC-SHA-256 and SHA-256 through mbed TLS (hmac_sha256.hpp).
#include "keel/crypto/hmac_sha256.hpp"

#include <mbedtls/md.h>
#include <mbedtls/sha256.h>

#include <cstdlib>

#if !KEEL_MBEDTLS_CONFIG
#error "mbed TLS's headers are not lib/mbedtls's: its config folder must come first"
#endif

namespace keel::crypto {
namespace {

constexpr int kSha256NotSha224 = 0;  // mbedtls_sha256's is224 argument

// mbed TLS fails only on bad parameters or when setup runs out of memory: not bad input.
void must(int status) {
  if (status != 0) std::abort();
}

}  // namespace

Sha256Digest hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> text) {
  Sha256Digest out;
  must(mbedtls_md_hmac(mbedtls_md_info_from_type(MBEDTLS_MD_SHA256), key.data(), key.size(),
                       text.data(), text.size(), out.data()));
  return out;
}

HmacSha256::HmacSha256(std::span<const uint8_t> key) {
  mbedtls_md_init(&context_);
  constexpr int kHmac = 1;  // mbedtls_md_setup: allocate the HMAC pads too
  must(mbedtls_md_setup(&context_, mbedtls_md_info_from_type(MBEDTLS_MD_SHA256), kHmac));
  must(mbedtls_md_hmac_starts(&context_, key.data(), key.size()));
}

HmacSha256::~HmacSha256() { mbedtls_md_free(&context_); }

Sha256Digest HmacSha256::mac(std::span<const uint8_t> text) {
  Sha256Digest out;
  must(mbedtls_md_hmac_reset(&context_));  // back to the inner pad: the key stays
  must(mbedtls_md_hmac_update(&context_, text.data(), text.size()));
  must(mbedtls_md_hmac_finish(&context_, out.data()));
  return out;
}

Sha256Digest sha256(std::span<const uint8_t> text) {
  Sha256Digest out;
  must(mbedtls_sha256(text.data(), text.size(), out.data(), kSha256NotSha224));
  return out;
}

bool equal_in_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  if (a.size() != b.size()) return false;
  uint8_t diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

}  // namespace keel::crypto
