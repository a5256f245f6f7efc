// A look at the first bytes of a connection, before mbed TLS reads them: which cipher suites
// the ClientHello offers (RFC 8446 §4.1.2; TLS 1.2's layout is the same up to the suites,
// RFC 5246 §7.4.1.2). The server picks its AEAD from this (decision 0106); mbed TLS parses
// and checks the whole message itself afterwards.
#pragma once
#include <cstdint>
#include <span>

namespace keel::tls {

// True when `first_bytes` (the start of the TLS stream) begin a ClientHello whose cipher
// suite list, complete within them, holds `suite`. Anything else (not a handshake record, not
// a ClientHello, lengths that overrun, a list cut short) is false: the caller then leaves the
// choice to mbed TLS.
bool client_hello_offers(std::span<const uint8_t> first_bytes, uint16_t suite);

}  // namespace keel::tls
