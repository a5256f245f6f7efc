// mbed TLS's side of a ServerContext (server_context.hpp), shared by its connections.
#pragma once
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/ssl_ticket.h>
#include <mbedtls/x509_crt.h>

#include <span>
#include <vector>

#include "handshake_turns.hpp"
#include "keel/tls/server_context.hpp"

#if !KEEL_MBEDTLS_CONFIG
#error "mbed TLS's headers are not lib/mbedtls's: its config folder must come first"
#endif

namespace keel::tls {

struct ServerContext::Impl {
  Impl();
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // The session's config, by the start of its ClientHello: `chacha20_config` when the server
  // prefers ChaCha20-Poly1305 and the client offers it, else `config`.
  const mbedtls_ssl_config& config_for(std::span<const uint8_t> first_bytes) const;

  mbedtls_ssl_config config;
  // `config` whose TLS 1.3 suites are ChaCha20-Poly1305 alone (mbed TLS 1.3 servers take the
  // client's first shared suite) and whose TLS 1.2 suites put it first (1.2 servers take their
  // own order). Set up only when the server prefers ChaCha20.
  mbedtls_ssl_config chacha20_config;
  bool prefer_chacha20 = false;
  std::vector<int> chacha20_suites;  // mbed TLS keeps a pointer to it
  mbedtls_x509_crt certificate;
  mbedtls_pk_context key;
  mbedtls_ssl_ticket_context tickets;
  Counters* counters = nullptr;  // the context's, for the ticket callback
  HandshakeTurns turns;          // sessions waiting for their handshake turn, when paced
};

// mbed TLS's error text, where it has one, with the code.
std::string describe(int mbedtls_error);

}  // namespace keel::tls
