// Canonical name order (RFC 4034 §6.1) and NSEC3 owner hashes (RFC 5155 §5).
#include <mbedtls/sha1.h>

#include "keel/dns/constants.hpp"
#include "keel/dns/dnssec_zone.hpp"
#include "keel/dns/name.hpp"

namespace keel::dns {
namespace {

// Offsets of the labels of a wire name, root excluded; returns the count.
int label_offsets(std::string_view name, uint8_t (&at)[max_labels]) {
  int count = 0;
  for (std::size_t p = 0; p < name.size() && octet(name, p) != 0 && count < int(max_labels);
       p += 1 + octet(name, p))
    at[count++] = uint8_t(p);
  return count;
}

}  // namespace

int canonical_compare(std::string_view a, std::string_view b) {
  uint8_t at_a[max_labels], at_b[max_labels];
  int i = label_offsets(a, at_a), j = label_offsets(b, at_b);
  while (i > 0 && j > 0) {
    const std::size_t pa = at_a[--i], pb = at_b[--j];
    const std::size_t la = octet(a, pa), lb = octet(b, pb);
    for (std::size_t k = 1; k <= la && k <= lb; ++k) {
      const int ca = ascii_lower(octet(a, pa + k)), cb = ascii_lower(octet(b, pb + k));
      if (ca != cb) return ca < cb ? -1 : 1;
    }
    if (la != lb) return la < lb ? -1 : 1;
  }
  return i == j ? 0 : (i < j ? -1 : 1);  // the one with labels left is below the other
}

Nsec3Hash nsec3_hash(const DnssecZone& zone, std::string_view lowered_name) {
  // IH(salt, x, 0) = H(x || salt); IH(salt, x, k) = H(IH(salt, x, k-1) || salt).
  Nsec3Hash hash;
  mbedtls_sha1_context sha;
  mbedtls_sha1_init(&sha);
  const auto* salt = reinterpret_cast<const unsigned char*>(zone.salt.data());
  for (uint32_t k = 0; k <= zone.iterations; ++k) {
    mbedtls_sha1_starts(&sha);
    if (k == 0) {
      mbedtls_sha1_update(&sha, reinterpret_cast<const unsigned char*>(lowered_name.data()),
                          lowered_name.size());
    } else {
      mbedtls_sha1_update(&sha, hash.data(), hash.size());
    }
    mbedtls_sha1_update(&sha, salt, zone.salt.size());
    mbedtls_sha1_finish(&sha, hash.data());
  }
  mbedtls_sha1_free(&sha);
  return hash;
}

}  // namespace keel::dns
