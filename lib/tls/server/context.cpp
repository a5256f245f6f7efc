// ServerContext (server_context.hpp): mbed TLS's server config with Keel's choices.
#include <psa/crypto.h>
// mbed TLS 3.6's psa_util.h declares mbedtls_psa_get_random without C linkage for C++.
extern "C" {
#include <mbedtls/psa_util.h>
}

#include <cstdio>
#include <string>
#include <vector>

#include "aes_hardware.hpp"
#include "client_hello.hpp"
#include "context_impl.hpp"

namespace keel::tls {
namespace {

// RFC 7301: the one application protocol the server speaks. A client that offers ALPN
// without it gets the no_application_protocol alert.
const char* kAlpnProtocols[] = {"http/1.1", nullptr};  // mbed TLS takes it non-const

constexpr int kTls13ChaCha20 = 0x1303;  // TLS_CHACHA20_POLY1305_SHA256, RFC 8446 §B.4

mbedtls_ssl_protocol_version to_mbedtls(Version v) {
  return v == Version::tls1_3 ? MBEDTLS_SSL_VERSION_TLS1_3 : MBEDTLS_SSL_VERSION_TLS1_2;
}

// mbed TLS parses PEM only from a NUL-terminated buffer whose length counts the NUL; DER is
// taken as it is.
std::string parse_buffer(std::span<const uint8_t> bytes) {
  std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.find("-----BEGIN") != std::string::npos) text.push_back('\0');
  return text;
}

int write_ticket(void* impl, const mbedtls_ssl_session* session, unsigned char* start,
                 const unsigned char* end, size_t* size, uint32_t* lifetime) {
  auto* i = static_cast<ServerContext::Impl*>(impl);
  return mbedtls_ssl_ticket_write(&i->tickets, session, start, end, size, lifetime);
}

// mbed TLS's ticket check, counted: a ticket that decrypts under a current key and is
// within its lifetime resumes the session (TLS 1.2 at once; TLS 1.3 once the client's PSK
// binder checks out).
int parse_ticket(void* impl, mbedtls_ssl_session* session, unsigned char* ticket, size_t size) {
  auto* i = static_cast<ServerContext::Impl*>(impl);
  const int e = mbedtls_ssl_ticket_parse(&i->tickets, session, ticket, size);
  if (e == 0 && i->counters != nullptr) ++i->counters->tickets_accepted;
  return e;
}

// Keel's settings on one mbed TLS config (create() may make two, decision 0106).
std::string configure(mbedtls_ssl_config& c, ServerContext::Impl& impl,
                      const ServerOptions& options) {
  int e = mbedtls_ssl_config_defaults(&c, MBEDTLS_SSL_IS_SERVER, MBEDTLS_SSL_TRANSPORT_STREAM,
                                      MBEDTLS_SSL_PRESET_DEFAULT);
  if (e != 0) return "TLS: config defaults (" + describe(e) + ")";
  mbedtls_ssl_conf_rng(&c, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
  mbedtls_ssl_conf_min_tls_version(&c, to_mbedtls(options.min_version));
  mbedtls_ssl_conf_max_tls_version(&c, to_mbedtls(options.max_version));
  if ((e = mbedtls_ssl_conf_own_cert(&c, &impl.certificate, &impl.key)) != 0)
    return "TLS: the key does not fit the certificate (" + describe(e) + ")";
  if ((e = mbedtls_ssl_conf_alpn_protocols(&c, kAlpnProtocols)) != 0)
    return "TLS: ALPN (" + describe(e) + ")";
  // One pointer for both callbacks (mbed TLS's API): Impl, whose tickets they use.
  mbedtls_ssl_conf_session_tickets_cb(&c, write_ticket, parse_ticket, &impl);
  return {};
}

// TLS 1.3's suites are 0x13xx (RFC 8446 §B.4); ChaCha20-Poly1305's are 0x1303 and, for TLS
// 1.2, 0xCCA8-0xCCAE (RFC 7905).
bool is_tls1_3(int suite) { return (suite >> 8) == 0x13; }
bool is_chacha20(int suite) {
  return suite == kTls13ChaCha20 || (suite >= 0xCCA8 && suite <= 0xCCAE);
}

// `suites` (0-terminated) with ChaCha20-Poly1305's first and TLS 1.3's AES suites left out.
std::vector<int> chacha20_first(const int* suites) {
  std::vector<int> out;
  for (const int* s = suites; *s != 0; ++s)
    if (is_chacha20(*s)) out.push_back(*s);
  for (const int* s = suites; *s != 0; ++s)
    if (!is_chacha20(*s) && !is_tls1_3(*s)) out.push_back(*s);
  out.push_back(0);
  return out;
}

const uint8_t* data_of(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

}  // namespace

std::string describe(int error) {
  char code[32];
  std::snprintf(code, sizeof code, "-0x%04x", unsigned(-error));
  return std::string("mbed TLS error ") + code;
}

ServerContext::Impl::Impl() {
  mbedtls_ssl_config_init(&config);
  mbedtls_ssl_config_init(&chacha20_config);
  mbedtls_x509_crt_init(&certificate);
  mbedtls_pk_init(&key);
  mbedtls_ssl_ticket_init(&tickets);
}

ServerContext::Impl::~Impl() {
  mbedtls_ssl_ticket_free(&tickets);
  mbedtls_pk_free(&key);
  mbedtls_x509_crt_free(&certificate);
  mbedtls_ssl_config_free(&chacha20_config);
  mbedtls_ssl_config_free(&config);
}

const mbedtls_ssl_config& ServerContext::Impl::config_for(
    std::span<const uint8_t> first_bytes) const {
  return prefer_chacha20 && client_hello_offers(first_bytes, kTls13ChaCha20) ? chacha20_config
                                                                             : config;
}

ServerContext::ServerContext(ServerOptions options, std::unique_ptr<Impl> impl)
    : options_(options), impl_(std::move(impl)) {}

ServerContext::~ServerContext() = default;

void ServerContext::pace_handshakes(std::function<void()> wake) {
  impl_->turns.pace(std::move(wake));
}

bool ServerContext::run_handshake_turn() { return impl_->turns.run_one(); }

ServerContext::Made ServerContext::create(const Credentials& credentials,
                                          const ServerOptions& options, RandomSource random) {
  if (random != RandomSource::seeded) {
    return {nullptr,
            "TLS refused: the random generator is not seeded (no virtio-rng, RDSEED or RDRAND); "
            "keys and session secrets would be guessable (decision 0104)"};
  }
  if (options.min_version > options.max_version) return {nullptr, "TLS: min_version > max_version"};
  // PSA holds the ciphers TLS 1.3 uses; it draws from getrandom() (lib/mbedtls/random.c).
  if (psa_status_t s = psa_crypto_init(); s != PSA_SUCCESS)
    return {nullptr, "TLS: psa_crypto_init failed (" + std::to_string(int(s)) + ")"};

  auto impl = std::make_unique<Impl>();
  const std::string chain = parse_buffer(credentials.certificate_chain);
  if (int e = mbedtls_x509_crt_parse(&impl->certificate, data_of(chain), chain.size()); e != 0)
    return {nullptr, "TLS: the certificate chain does not parse (" + describe(e) + ")"};
  std::string key = parse_buffer(credentials.private_key);
  int e = mbedtls_pk_parse_key(&impl->key, data_of(key), key.size(), nullptr, 0,
                               mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
  mbedtls_platform_zeroize(key.data(), key.size());
  if (e != 0) return {nullptr, "TLS: the private key does not parse (" + describe(e) + ")"};
  if ((e = mbedtls_pk_check_pair(&impl->certificate.pk, &impl->key, mbedtls_psa_get_random,
                                 MBEDTLS_PSA_RANDOM_STATE)) != 0)
    return {nullptr, "TLS: the private key is not the certificate's (" + describe(e) + ")"};

  // Resumption by tickets (RFC 5077 for 1.2, RFC 8446 §4.6.1 for 1.3): the server keeps no
  // per-session state; the ticket key (AES-256-GCM) is random and rotates every lifetime.
  if ((e = mbedtls_ssl_ticket_setup(&impl->tickets, mbedtls_psa_get_random,
                                    MBEDTLS_PSA_RANDOM_STATE, MBEDTLS_CIPHER_AES_256_GCM,
                                    options.ticket_lifetime_s)) != 0)
    return {nullptr, "TLS: session ticket keys (" + describe(e) + ")"};
  if (std::string error = configure(impl->config, *impl, options); !error.empty())
    return {nullptr, error};
  impl->prefer_chacha20 =
      options.aead == Aead::chacha20 || (options.aead == Aead::automatic && !aes_gcm_in_hardware());
  if (impl->prefer_chacha20) {
    if (std::string error = configure(impl->chacha20_config, *impl, options); !error.empty())
      return {nullptr, error};
    impl->chacha20_suites = chacha20_first(mbedtls_ssl_list_ciphersuites());
    mbedtls_ssl_conf_ciphersuites(&impl->chacha20_config, impl->chacha20_suites.data());
  }
  Impl* raw = impl.get();
  std::shared_ptr<ServerContext> context(new ServerContext(options, std::move(impl)));
  raw->counters = &context->counters();
  return {context, {}};
}

}  // namespace keel::tls
