// Keel's build of mbed TLS 3.6 (docs/decisions/0105): what a TLS 1.3 and 1.2 server and
// lib/crypto's HMAC need, nothing else. This file shadows the upstream
// include/mbedtls/mbedtls_config.h: lib/mbedtls puts this folder first on the include path.
// No file system, no sockets, no entropy module: random bytes come from getrandom() (the
// kernel's ChaCha20 generator in an image, decision 0104) through PSA's external RNG hook.
#ifndef KEEL_MBEDTLS_CONFIG_H
#define KEEL_MBEDTLS_CONFIG_H

// Checked by lib/crypto and lib/tls: a build that picked up the upstream config fails loudly.
#define KEEL_MBEDTLS_CONFIG 1

// Platform: time() and clock_gettime() answer in an image (src/platform/kvm/syscalls.cpp);
// session tickets need them for their lifetime. No calendar dates: the server checks no
// peer certificate's validity period.
#define MBEDTLS_HAVE_ASM
#define MBEDTLS_HAVE_TIME
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_NO_PLATFORM_ENTROPY
#define MBEDTLS_DEPRECATED_REMOVED

// Random bytes: getrandom() (lib/mbedtls/random.c), no entropy pool or DRBG of mbed TLS's own.
#define MBEDTLS_PSA_CRYPTO_C
#define MBEDTLS_PSA_CRYPTO_EXTERNAL_RNG
#define MBEDTLS_USE_PSA_CRYPTO
// Every TLS session holds PSA keys (its record keys, the handshake's ephemeral one): the
// fixed store's 32 slots (MBEDTLS_PSA_KEY_SLOT_COUNT) fail handshakes past a few sessions at
// once. The dynamic store grows on the heap, which `max_sessions` bounds.
#define MBEDTLS_PSA_KEY_STORE_DYNAMIC

// Hashes and MACs: SHA-256 (lib/crypto's HMAC, TLS), SHA-384 (TLS_AES_256_GCM_SHA384), SHA-1
// only as TLS 1.2 and certificates still name it for signatures some clients offer.
#define MBEDTLS_MD_C
#define MBEDTLS_SHA1_C
#define MBEDTLS_SHA224_C
#define MBEDTLS_SHA256_C
#define MBEDTLS_SHA384_C
#define MBEDTLS_SHA512_C
#define MBEDTLS_HKDF_C

// Ciphers: AES-GCM and ChaCha20-Poly1305 (RFC 8446 §9.1's mandatory and common suites);
// AES-NI when the CPU has it, found at run time.
#define MBEDTLS_CIPHER_C
#define MBEDTLS_AES_C
#define MBEDTLS_AESNI_C
#define MBEDTLS_GCM_C
#define MBEDTLS_CHACHA20_C
#define MBEDTLS_POLY1305_C
#define MBEDTLS_CHACHAPOLY_C

// Public keys: ECDHE on X25519, P-256, P-384; ECDSA and RSA (PKCS#1 v1.5 for TLS 1.2, PSS for
// TLS 1.3) certificates.
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_DP_SECP384R1_ENABLED
#define MBEDTLS_ECP_DP_CURVE25519_ENABLED
#define MBEDTLS_ECP_NIST_OPTIM
#define MBEDTLS_ECDH_C
// X25519 by Everest's HACL* code (3rdparty/everest): the shared secret of every TLS 1.3
// handshake with an X25519 key share, the most common one.
#define MBEDTLS_ECDH_VARIANT_EVEREST_ENABLED
#define MBEDTLS_ECDSA_C
#define MBEDTLS_ECDSA_DETERMINISTIC
#define MBEDTLS_HMAC_DRBG_C
#define MBEDTLS_RSA_C
#define MBEDTLS_PKCS1_V15
#define MBEDTLS_PKCS1_V21
#define MBEDTLS_GENPRIME

// Certificates and keys from PEM or DER, in memory (the image or the config), never a file.
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C
#define MBEDTLS_BASE64_C
#define MBEDTLS_PEM_PARSE_C
#define MBEDTLS_OID_C
#define MBEDTLS_PK_C
#define MBEDTLS_PK_PARSE_C
#define MBEDTLS_PK_PARSE_EC_EXTENDED
#define MBEDTLS_PK_PARSE_EC_COMPRESSED
#define MBEDTLS_PK_WRITE_C
#define MBEDTLS_X509_USE_C
#define MBEDTLS_X509_CRT_PARSE_C

// TLS: a server, 1.3 and 1.2 (RFC 8446, RFC 5246), ALPN (RFC 7301), resumption by session
// tickets (RFC 8446 §4.6.1, RFC 5077), extended master secret (RFC 7627), encrypt-then-MAC.
#define MBEDTLS_SSL_TLS_C
#define MBEDTLS_SSL_SRV_C
#define MBEDTLS_SSL_PROTO_TLS1_2
#define MBEDTLS_SSL_PROTO_TLS1_3
#define MBEDTLS_SSL_TLS1_3_COMPATIBILITY_MODE
#define MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_EPHEMERAL_ENABLED
#define MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK_EPHEMERAL_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_RSA_ENABLED
#define MBEDTLS_SSL_ALPN
#define MBEDTLS_SSL_SESSION_TICKETS
#define MBEDTLS_SSL_TICKET_C
#define MBEDTLS_SSL_SERVER_NAME_INDICATION
#define MBEDTLS_SSL_EXTENDED_MASTER_SECRET
#define MBEDTLS_SSL_ENCRYPT_THEN_MAC
#define MBEDTLS_SSL_KEEP_PEER_CERTIFICATE
#define MBEDTLS_SSL_MAX_FRAGMENT_LENGTH

// Records: a client may send 16 KiB records (RFC 8446 §5.1), so the input buffer holds one;
// the server's own records are at most 4 KiB (it chooses) unless a certificate chain needs
// more: the whole Certificate message must fit (mbed TLS does not split it).
#define MBEDTLS_SSL_IN_CONTENT_LEN 16384
#define MBEDTLS_SSL_OUT_CONTENT_LEN 8192

#endif  // KEEL_MBEDTLS_CONFIG_H
