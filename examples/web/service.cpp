// The web appliance: the files of site/ (compiled into the image by
// keel_static_files in CMakeLists.txt) at / and a REST API of JSON items
// (items.hpp) at /api on lib/http's server (docs/http.md), over HTTP and
// HTTPS (lib/tls: TLS 1.3 and 1.2, the certificate embedded by
// keel_tls_credentials). Settings in config.hpp: the ports (80 and 443 by
// default), the timeouts, an access log that is off by default. HTTPS
// refuses to start when the random generator is not seeded (decision 0104).
// With web_transfer=1, transfer.hpp's routes stream a large download and
// hash a large upload (test/http/test_web_scale.py); with web_metrics=1,
// /metrics serves the image's counters (docs/observability.md).
//
//   tools/keel run examples/web -p 8080:80 -p 8443:443
//   curl http://127.0.0.1:8080/
//   curl --cacert examples/web/build/kvm/test_tls_cert.pem https://localhost:8443/
//   curl -H 'Content-Type: application/json' -d '{"name":"x"}' http://127.0.0.1:8080/api/items
//
// The access log and the counter lines go to the console, which Keel
// buffers and drains without stalling the event loop (DESIGN.md): a line
// costs a formatted copy, never a wait on the serial port.
#include <chrono>
#include <cstdio>
#include <keel/http/metrics.hpp>
#include <keel/http/static_files.hpp>
#include <keel/tls/embedded.hpp>
#include <keel/tls/https.hpp>
#include <net/stack.hpp>
#include <os>
#include <string_view>

#include "config.hpp"
#include "items.hpp"
#include "transfer.hpp"

namespace {

namespace http = keel::http;

http::Server* server = nullptr;
std::shared_ptr<keel::tls::ServerContext> tls;  // null when HTTPS is off

void fail(const std::string& message) {
  std::printf("web: %s\n", message.c_str());
  os::shutdown(1);
}

void print_stats() {
  const http::ServerCounters& c = server->counters();
  std::printf(
      "web: open %llu accepted %llu refused %llu requests %llu 1xx %llu 2xx %llu 3xx %llu 4xx "
      "%llu 5xx %llu parse-errors %llu timeouts header %llu body %llu idle %llu send %llu\n",
      (unsigned long long)c.open, (unsigned long long)c.accepted, (unsigned long long)c.refused,
      (unsigned long long)c.requests, (unsigned long long)c.responses[1],
      (unsigned long long)c.responses[2], (unsigned long long)c.responses[3],
      (unsigned long long)c.responses[4], (unsigned long long)c.responses[5],
      (unsigned long long)c.parse_errors, (unsigned long long)c.header_timeouts,
      (unsigned long long)c.body_timeouts, (unsigned long long)c.idle_timeouts,
      (unsigned long long)c.send_timeouts);
  if (!tls) return;
  const keel::tls::Counters& t = tls->counters();
  std::printf(
      "web: tls open %llu sessions %llu refused %llu handshakes %llu tls1.3 %llu tls1.2 %llu "
      "resumed %llu handshake-failures %llu record-errors %llu chacha20-preferred %llu "
      "handshake-waits %llu abandoned %llu\n",
      (unsigned long long)t.open, (unsigned long long)t.sessions, (unsigned long long)t.refused,
      (unsigned long long)t.handshakes, (unsigned long long)t.tls1_3, (unsigned long long)t.tls1_2,
      (unsigned long long)t.tickets_accepted, (unsigned long long)t.handshake_failures,
      (unsigned long long)t.record_errors, (unsigned long long)t.chacha20_preferred,
      (unsigned long long)t.handshake_waits, (unsigned long long)t.abandoned);
}

}  // namespace

void Service::start() {
  web_app::Config config;
  config.server.max_buffered_body = 64 * 1024;         // items are small
  config.server.limits.max_body = 1024 * 1024 * 1024;  // a streamed upload (transfer.hpp)
  // Requests are small and the page and items go out whole: a modest window
  // and send buffer per connection (the stack's defaults are 256 KiB each),
  // as examples/dns does for DNS over TCP.
  config.server.tcp.receive_buffer = 16 * 1024;
  config.server.tcp.send_buffer = 64 * 1024;
  config.server.tcp.no_delay = true;  // a response is written whole: never hold it for an ACK
  if (std::string e = web_app::load_config(config); !e.empty()) return fail(e);

  // Lives as long as the service (the server must outlive its connections).
  server = new http::Server(http::os_server_time(), config.server);
  // The site (site/, embedded at build time) at "/" and the API below
  // /api: the router prefers the API's literal segments to the files'
  // wildcard whatever the order.
  if (!http::serve_static(*server, "/", http::static_files())) return fail("cannot mount the site");
  web_app::add_item_routes(*server, config.max_items);
  if (config.transfer) web_app::add_transfer_routes(*server);
  if (config.metrics && !http::serve_metrics(*server)) return fail("cannot serve /metrics");
  if (config.access_log) {
    server->set_access_log([](const http::AccessEntry& e) {
      std::printf("web: %s \"%.*s %.*s\" %u %llu\n", e.remote.to_string().c_str(),
                  int(e.method.size()), e.method.data(), int(e.target.size()), e.target.data(),
                  unsigned(e.status), (unsigned long long)e.content_bytes);
    });
  }

  net::Stack& stack = net::stack();
  if (auto s = server->listen(stack, config.port); s != net::Status::ok)
    return fail("cannot listen on port " + std::to_string(config.port) + ": " + net::to_string(s));
  if (config.https_port != 0) {
    auto made = keel::tls::ServerContext::create(keel::tls::embedded_credentials(), config.tls);
    if (!made.context) return fail(made.error);
    tls = made.context;
    if (auto s = server->listen(stack, config.https_port, keel::tls::https_transport(tls));
        s != net::Status::ok)
      return fail("cannot listen on port " + std::to_string(config.https_port) + ": " +
                  net::to_string(s));
  }
  if (config.stats_interval != 0) {
    os::Timers::periodic(std::chrono::seconds(config.stats_interval),
                         [](os::Timers::id_t) { print_stats(); });
  }
  const uint16_t port = config.port;
  const uint16_t https_port = config.https_port;
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    stack.interface(net::InterfaceId(i)).on_config([port, https_port](net::Interface& nic) {
      if (https_port != 0)
        std::printf("web: %s %s https on %s:%u\n", nic.nic().name().c_str(),
                    nic.mac().to_string().c_str(), nic.address().to_string().c_str(), https_port);
      std::printf("web: %s %s listening on %s:%u\n", nic.nic().name().c_str(),
                  nic.mac().to_string().c_str(), nic.address().to_string().c_str(), port);
    });
  }
}
