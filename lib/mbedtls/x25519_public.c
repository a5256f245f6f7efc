// The public half of an X25519 key pair by Everest's HACL* (decision 0105). A TLS 1.3
// handshake makes an ephemeral X25519 key and exports its public half; mbed TLS computes that
// with its generic curve arithmetic, about half of a handshake's time. sources.cmake renames
// psa_crypto_ecp.c's function to ..._builtin when it compiles that one file, so psa_crypto.c's
// call lands here; every other key goes on to mbed TLS's own. Same bytes (RFC 7748 §5: the
// scalar clamped, u = 9 as the base point), checked against it in test/tls.
#include <mbedtls/platform_util.h>
#include <psa/crypto.h>
#include <string.h>

#include "Hacl_Curve25519.h"

enum { x25519_bytes = 32 };

psa_status_t mbedtls_psa_ecp_export_public_key_builtin(const psa_key_attributes_t* attributes,
                                                       const uint8_t* key_buffer,
                                                       size_t key_buffer_size, uint8_t* data,
                                                       size_t data_size, size_t* data_length);

psa_status_t mbedtls_psa_ecp_export_public_key(const psa_key_attributes_t* attributes,
                                               const uint8_t* key_buffer, size_t key_buffer_size,
                                               uint8_t* data, size_t data_size,
                                               size_t* data_length) {
  if (psa_get_key_type(attributes) != PSA_KEY_TYPE_ECC_KEY_PAIR(PSA_ECC_FAMILY_MONTGOMERY) ||
      psa_get_key_bits(attributes) != 255 || key_buffer_size != x25519_bytes)
    return mbedtls_psa_ecp_export_public_key_builtin(attributes, key_buffer, key_buffer_size, data,
                                                     data_size, data_length);
  if (data_size < x25519_bytes) return PSA_ERROR_BUFFER_TOO_SMALL;
  uint8_t secret[x25519_bytes], base[x25519_bytes] = {9};
  memcpy(secret, key_buffer, sizeof secret);  // HACL* takes it as not const
  Hacl_Curve25519_crypto_scalarmult(data, secret, base);
  mbedtls_platform_zeroize(secret, sizeof secret);
  *data_length = x25519_bytes;
  return PSA_SUCCESS;
}
