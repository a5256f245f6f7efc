// The HTTP server options both server fuzz targets start from: one connection, every timeout
// within seconds (so an input's time records reach them), small TCP and stream buffers (so
// back-pressure is reached).
#pragma once

#include <chrono>
#include <keel/http/server.hpp>

namespace keel::fuzz {

inline http::ServerOptions small_server_options() {
  using namespace std::chrono_literals;
  http::ServerOptions o;
  o.header_timeout = 1s;
  o.body_timeout = 1s;
  o.idle_timeout = 2s;
  o.send_timeout = 1s;
  o.linger_timeout = 500ms;
  o.max_connections = 1;
  o.tcp.receive_buffer = 8192;
  o.stream.write_limit = 4096;
  o.stream.drain_at = 1024;
  return o;
}

}  // namespace keel::fuzz
