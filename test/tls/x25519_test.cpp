// X25519 in Keel's mbed TLS (decision 0105): the shared secret by Everest's ECDH variant and the
// public half of a key pair by lib/mbedtls/x25519_public.c, both through PSA as TLS 1.3 calls
// them. RFC 7748 §6.1's vectors, and the public halves of random keys against mbed TLS's own.
#include <gtest/gtest.h>
#include <psa/crypto.h>

#include <array>
#include <cstdint>
#include <string>

extern "C" psa_status_t mbedtls_psa_ecp_export_public_key_builtin(
    const psa_key_attributes_t* attributes, const uint8_t* key_buffer, size_t key_buffer_size,
    uint8_t* data, size_t data_size, size_t* data_length);

namespace {

using Bytes = std::array<uint8_t, 32>;

Bytes hex(const std::string& text) {
  Bytes out{};
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = uint8_t(std::stoul(text.substr(2 * i, 2), nullptr, 16));
  return out;
}

psa_key_attributes_t x25519_pair() {
  psa_key_attributes_t a = PSA_KEY_ATTRIBUTES_INIT;
  psa_set_key_type(&a, PSA_KEY_TYPE_ECC_KEY_PAIR(PSA_ECC_FAMILY_MONTGOMERY));
  psa_set_key_bits(&a, 255);
  psa_set_key_usage_flags(&a, PSA_KEY_USAGE_DERIVE | PSA_KEY_USAGE_EXPORT);
  psa_set_key_algorithm(&a, PSA_ALG_ECDH);
  return a;
}

class X25519 : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(psa_crypto_init(), PSA_SUCCESS); }
  psa_key_id_t import(const Bytes& secret) {
    psa_key_attributes_t a = x25519_pair();
    psa_key_id_t id = 0;
    EXPECT_EQ(psa_import_key(&a, secret.data(), secret.size(), &id), PSA_SUCCESS);
    return id;
  }
  static Bytes public_of(psa_key_id_t id) {
    Bytes out{};
    size_t n = 0;
    EXPECT_EQ(psa_export_public_key(id, out.data(), out.size(), &n), PSA_SUCCESS);
    EXPECT_EQ(n, out.size());
    return out;
  }
};

// RFC 7748 §6.1.
const Bytes alice = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
const Bytes alice_public = hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
const Bytes bob = hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
const Bytes bob_public = hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
const Bytes shared = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");

TEST_F(X25519, PublicHalvesAreRfc7748s) {
  psa_key_id_t a = import(alice), b = import(bob);
  EXPECT_EQ(public_of(a), alice_public);
  EXPECT_EQ(public_of(b), bob_public);
  psa_destroy_key(a);
  psa_destroy_key(b);
}

TEST_F(X25519, SharedSecretIsRfc7748s) {
  psa_key_id_t a = import(alice);
  Bytes out{};
  size_t n = 0;
  ASSERT_EQ(psa_raw_key_agreement(PSA_ALG_ECDH, a, bob_public.data(), bob_public.size(), out.data(),
                                  out.size(), &n),
            PSA_SUCCESS);
  EXPECT_EQ(n, out.size());
  EXPECT_EQ(out, shared);
  psa_destroy_key(a);
}

TEST_F(X25519, RandomKeysGetMbedTlsOwnPublicHalves) {
  for (int i = 0; i < 64; ++i) {
    psa_key_attributes_t a = x25519_pair();
    psa_key_id_t id = 0;
    ASSERT_EQ(psa_generate_key(&a, &id), PSA_SUCCESS);
    Bytes secret{}, theirs{};
    size_t n = 0;
    ASSERT_EQ(psa_export_key(id, secret.data(), secret.size(), &n), PSA_SUCCESS);
    ASSERT_EQ(mbedtls_psa_ecp_export_public_key_builtin(&a, secret.data(), secret.size(),
                                                        theirs.data(), theirs.size(), &n),
              PSA_SUCCESS);
    EXPECT_EQ(public_of(id), theirs) << "key " << i;
    psa_destroy_key(id);
  }
}

TEST_F(X25519, ShortBufferIsRefused) {
  psa_key_id_t a = import(alice);
  uint8_t out[31];
  size_t n = 0;
  EXPECT_EQ(psa_export_public_key(a, out, sizeof out, &n), PSA_ERROR_BUFFER_TOO_SMALL);
  psa_destroy_key(a);
}

}  // namespace
