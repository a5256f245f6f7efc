#include "config.hpp"

#include <chrono>
#include <cstdint>
#include <os>
#include <util/settings.hpp>

namespace web_app {
namespace {

using keel::settings::parse_bool;
using keel::settings::parse_uint;

// A timeout in milliseconds, from 1 ms to an hour.
std::string parse_ms(const std::string& field, std::string_view text,
                     std::chrono::milliseconds& out) {
  constexpr uint32_t hour_ms = 3'600'000;
  uint32_t n = 0;
  std::string error = parse_uint(field, text, hour_ms, n);
  if (error.empty() && n == 0) error = field + ": a timeout of 0 ms";
  if (error.empty()) out = std::chrono::milliseconds(n);
  return error;
}

std::string apply(Config& c, const std::string& field, const std::string& key,
                  const std::string& value) {
  uint32_t n = 0;
  std::string error;
  if (key == "port") {
    if ((error = parse_uint(field, value, 65535, n)).empty()) c.port = uint16_t(n);
    if (error.empty() && n == 0) error = field + ": port 0";
  } else if (key == "https_port") {
    if ((error = parse_uint(field, value, 65535, n)).empty()) c.https_port = uint16_t(n);
    if (error.empty() && n != 0 && n == c.port) error = field + ": the HTTP port";
  } else if (key == "tls_max") {
    if ((error = parse_uint(field, value, 1'000'000, n)).empty()) c.tls.max_sessions = n;
    if (error.empty() && n == 0) error = field + ": no sessions";
  } else if (key == "tls_aead") {
    if (value == "auto")
      c.tls.aead = keel::tls::Aead::automatic;
    else if (value == "client")
      c.tls.aead = keel::tls::Aead::client;
    else if (value == "chacha20")
      c.tls.aead = keel::tls::Aead::chacha20;
    else
      error = field + ": auto, client or chacha20";
  } else if (key == "log") {
    error = parse_bool(field, value, c.access_log);
  } else if (key == "stats") {
    error = parse_uint(field, value, 86400, c.stats_interval);
  } else if (key == "max_items") {
    error = parse_uint(field, value, 1'000'000, c.max_items);
  } else if (key == "transfer") {
    error = parse_bool(field, value, c.transfer);
  } else if (key == "metrics") {
    error = parse_bool(field, value, c.metrics);
  } else if (key == "max_upload") {
    if ((error = parse_uint(field, value, UINT32_MAX, n)).empty()) c.server.limits.max_body = n;
  } else if (key == "send_buffer") {
    if ((error = parse_uint(field, value, 64 << 20, n)).empty()) c.server.tcp.send_buffer = n;
  } else if (key == "receive_buffer") {
    if ((error = parse_uint(field, value, 64 << 20, n)).empty()) c.server.tcp.receive_buffer = n;
  } else if (key == "max_connections") {
    if ((error = parse_uint(field, value, 1'000'000, n)).empty()) c.server.max_connections = n;
  } else if (key == "header_timeout") {
    error = parse_ms(field, value, c.server.header_timeout);
  } else if (key == "body_timeout") {
    error = parse_ms(field, value, c.server.body_timeout);
  } else if (key == "idle_timeout") {
    error = parse_ms(field, value, c.server.idle_timeout);
  } else if (key == "send_timeout") {
    error = parse_ms(field, value, c.server.send_timeout);
  } else {
    error = field + ": unknown setting";
  }
  return error;
}

}  // namespace

std::string load_config(Config& config) {
  return keel::settings::apply_all(
      os::args(), "web_",
      [&config](const std::string& field, const std::string& key, const std::string& value) {
        return apply(config, field, key, value);
      });
}

}  // namespace web_app
