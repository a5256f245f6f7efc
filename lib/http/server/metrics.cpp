// serve_metrics (keel/http/metrics.hpp): net::metrics::render() on a route,
// and the server's own counters as a collector.
#include "keel/http/metrics.hpp"

#include <net/metrics.hpp>
#include <string>

namespace keel::http {
namespace {

namespace m = net::metrics;

void server_families(const ServerCounters& c, m::Writer& w) {
  w.family("keel_http_connections_accepted_total", "HTTP connections accepted", m::Type::counter);
  w.sample(c.accepted);
  w.family("keel_http_connections_refused_total", "HTTP connections reset: over max_connections",
           m::Type::counter);
  w.sample(c.refused);
  w.family("keel_http_connections_open", "HTTP connections open now", m::Type::gauge);
  w.sample(c.open);
  w.family("keel_http_requests_total", "HTTP request header sections received", m::Type::counter);
  w.sample(c.requests);
  w.family("keel_http_responses_total", "HTTP responses by status class", m::Type::counter);
  for (int k = 1; k <= 5; ++k) w.sample(c.responses[k], "class", std::to_string(k) + "xx");
  w.family("keel_http_parse_errors_total", "HTTP requests refused as malformed", m::Type::counter);
  w.sample(c.parse_errors);
  w.family("keel_http_timeouts_total", "HTTP connections ended by a timeout, by kind",
           m::Type::counter);
  w.sample(c.header_timeouts, "kind", "header");
  w.sample(c.body_timeouts, "kind", "body");
  w.sample(c.idle_timeouts, "kind", "idle");
  w.sample(c.send_timeouts, "kind", "send");
}

}  // namespace

bool serve_metrics(Server& server, std::string_view path) {
  auto page = [](Exchange ex) {
    Response r;
    r.set("Content-Type", std::string(m::content_type));
    r.set("Cache-Control", "no-store");
    ex.respond(r, m::render());
  };
  if (!server.route(Method::get, path, page)) return false;
  const ServerCounters* counters = &server.counters();
  m::add_collector([counters](m::Writer& w) { server_families(*counters, w); });
  return true;
}

}  // namespace keel::http
