// mbed TLS's side of a ServerContext (server_context.hpp), shared by its connections.
#pragma once
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/ssl_ticket.h>
#include <mbedtls/x509_crt.h>

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

  mbedtls_ssl_config config;
  mbedtls_x509_crt certificate;
  mbedtls_pk_context key;
  mbedtls_ssl_ticket_context tickets;
  Counters* counters = nullptr;  // the context's, for the ticket callback
};

// mbed TLS's error text, where it has one, with the code.
std::string describe(int mbedtls_error);

}  // namespace keel::tls
