// mbed TLS's random bytes (MBEDTLS_PSA_CRYPTO_EXTERNAL_RNG in config/mbedtls/mbedtls_config.h):
// getrandom(), which in an image is the kernel's ChaCha20 generator (decision 0104) and on
// Linux the host kernel's. Whether it was seeded is for the caller to check before it makes
// keys (os::random_seeded(); lib/tls refuses to start otherwise).
#include <errno.h>
#include <psa/crypto.h>
#include <sys/random.h>

psa_status_t mbedtls_psa_external_get_random(mbedtls_psa_external_random_context_t* context,
                                             uint8_t* output, size_t output_size,
                                             size_t* output_length) {
  (void)context;
  size_t done = 0;
  while (done < output_size) {
    ssize_t got = getrandom(output + done, output_size - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return PSA_ERROR_INSUFFICIENT_ENTROPY;
    done += (size_t)got;
  }
  *output_length = output_size;
  return PSA_SUCCESS;
}
