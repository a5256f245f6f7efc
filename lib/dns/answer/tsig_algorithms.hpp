// The TSIG algorithms Keel knows (RFC 8945 §6), shared by key parsing (tsig_key.cpp) and
// signing (tsig.cpp).
#pragma once
#include <mbedtls/md.h>

#include <cstddef>
#include <cstdlib>
#include <string_view>

#include "answer/tsig.hpp"

namespace keel::dns::tsig_detail {

struct Algorithm {
  TsigAlgorithm id;
  std::string_view text;  // as dig -y and NSD's `algorithm:` write it
  std::string_view wire;  // RFC 8945 §6, lower case
  mbedtls_md_type_t md;
  std::size_t mac_size;
};

inline constexpr Algorithm algorithms[] = {
    {TsigAlgorithm::hmac_sha1, "hmac-sha1", {"\11hmac-sha1\0", 11}, MBEDTLS_MD_SHA1, 20},
    {TsigAlgorithm::hmac_sha256, "hmac-sha256", {"\13hmac-sha256\0", 13}, MBEDTLS_MD_SHA256, 32},
    {TsigAlgorithm::hmac_sha512, "hmac-sha512", {"\13hmac-sha512\0", 13}, MBEDTLS_MD_SHA512, 64},
};

inline const Algorithm& algorithm_of(TsigAlgorithm id) {
  for (const Algorithm& a : algorithms)
    if (a.id == id) return a;
  std::abort();  // every TsigAlgorithm is in the table
}

}  // namespace keel::dns::tsig_detail
