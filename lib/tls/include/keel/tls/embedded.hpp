// The certificate and key compiled into the image by keel_tls_credentials(TARGET CERT KEY)
// (lib/tls/keel-library.cmake). Only a service that calls that function links: the symbols
// are its.
#pragma once
#include <cstddef>
#include <cstdint>

#include "keel/tls/server_context.hpp"

extern "C" {
struct keel_tls_blob {
  const uint8_t* data;
  std::size_t size;
};
extern const keel_tls_blob keel_tls_certificate;
extern const keel_tls_blob keel_tls_private_key;
}

namespace keel::tls {

inline Credentials embedded_credentials() {
  return {{keel_tls_certificate.data, keel_tls_certificate.size},
          {keel_tls_private_key.data, keel_tls_private_key.size}};
}

}  // namespace keel::tls
