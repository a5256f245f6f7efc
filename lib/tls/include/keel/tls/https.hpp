// HTTPS: lib/http's server over TLS. The transport made per accepted connection runs the
// handshake, then hands the server plaintext through the same Transport contract as plain
// TCP (keel/http/transport.hpp), so requests take the same path: parser, router, writer.
//
//   server.listen(stack, 443, tls::https_transport(context));
//
// Back-pressure is kept: the server's write() is refused while the TCP stream's queue is
// full; the transport decrypts one record at a time and reads no further record while the
// server has not taken the last one's plaintext. A handshake or record error is counted
// (Counters) and the connection closed.
#pragma once
#include <memory>

#include "keel/http/transport.hpp"
#include "keel/tls/server_context.hpp"

namespace keel::tls {

http::TransportFactory https_transport(std::shared_ptr<ServerContext> context);

}  // namespace keel::tls
