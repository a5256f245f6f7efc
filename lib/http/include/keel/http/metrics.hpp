// The image's metrics over HTTP (net::metrics, decision 0115): a service that
// has a Server opts in with one call.
//
//   http::serve_metrics(server);            // GET /metrics
//   curl http://10.0.0.2/metrics
//
// The page is the Prometheus text format 0.0.4: the console's drops, the
// stack's counters, every collector's (an appliance's), and this server's
// own as keel_http_* (requests, responses by class, timeouts, open
// connections). One server per image serves them; a second call adds its
// counters twice (Prometheus refuses duplicate families).
#pragma once
#include <string_view>

#include "keel/http/server.hpp"

namespace keel::http {

// GET and HEAD of `path`; false if the route is taken.
bool serve_metrics(Server& server, std::string_view path = "/metrics");

}  // namespace keel::http
