// The web appliance's settings, from the kernel command line (with the
// network's own: ip=, gw=, ...; docs/net), as examples/dns reads its own:
//
//   web_port=80 web_log=0 web_stats=0 (seconds) web_max_items=1000
//   web_header_timeout=10000 web_body_timeout=30000 web_idle_timeout=60000
//   web_send_timeout=60000 (ms) web_max_connections=1024
//   web_https_port=443 (0: no HTTPS) web_tls_max=128 (TLS sessions at once)
//   web_tls_aead=auto (client: the client's order; chacha20: ChaCha20-Poly1305 when offered)
//   web_transfer=0 (1: the large-transfer routes of transfer.hpp)
//   web_max_upload=1073741824 (bytes of a streamed upload; JSON items: 64 KiB)
//   web_send_buffer=65536 web_receive_buffer=16384 (bytes per TCP connection)
//   web_metrics=0 (1: the image's counters at /metrics, Prometheus text format)
#pragma once
#include <cstdint>
#include <string>

#include "keel/http/server.hpp"
#include "keel/tls/server_context.hpp"

namespace web_app {

struct Config {
  uint16_t port = 80;
  uint16_t https_port = 443;  // the same site over TLS 1.3 / 1.2; 0: off
  keel::tls::ServerOptions tls;
  bool access_log = false;      // one line per response on the console
  uint32_t stats_interval = 0;  // seconds between counter lines; 0: none
  uint32_t max_items = 1000;    // the REST store's bound
  bool transfer = false;        // /api/bytes and /api/sha256 (transfer.hpp)
  bool metrics = false;         // GET /metrics (keel/http/metrics.hpp, decision 0115)
  keel::http::ServerOptions server;
};

// Reads the command line; returns the first error ("web_port: ..."), or an
// empty string.
std::string load_config(Config& config);

}  // namespace web_app
