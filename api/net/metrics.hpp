// Counters as Prometheus metrics: the text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/). The
// stack's counters (api/net/counters.hpp) are always in it; an appliance
// adds its own with add_collector. A service serves render() over HTTP
// (lib/http: keel/http/metrics.hpp) when it opts in; docs/observability.md,
// decision 0115.
//
//   keel_net_udp_rx_total 42
//   keel_net_link_arp_tx_requests_total{interface="0"} 1
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <util/delegate.hpp>

namespace net {
class Stack;
}

namespace net::metrics {

inline constexpr std::string_view content_type = "text/plain; version=0.0.4; charset=utf-8";

enum class Type { counter, gauge };

// Writes one metric family after another: HELP and TYPE once, then its
// samples. A name that is not [a-zA-Z_:][a-zA-Z0-9_:]* is skipped whole.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  void family(std::string_view name, std::string_view help, Type type);
  // A sample of the current family; `label`/`value`: one label, or none
  // when `label` is empty (the value is escaped).
  void sample(uint64_t value, std::string_view label = {}, std::string_view label_value = {});

 private:
  std::string& out_;
  std::string name_;  // the current family's; empty: skipped
};

using Collector = keel::delegate<void(Writer&)>;
// Adds an appliance's counters to every render(); returns its id.
int add_collector(Collector collector);
void remove_collector(int id);

// "ip4.drop_bad_checksum" under "keel_net" -> "keel_net_ip4_drop_bad_checksum":
// every character outside [a-zA-Z0-9_:] becomes '_'.
std::string metric_name(std::string_view prefix, std::string_view dotted);

// The stack's counters, then every collector's.
void render(Stack& stack, std::string& out);
// The image's: net::stack(), the console's drops, the collectors'
// (src/net/metrics/system_metrics.cpp: images and the Linux process).
std::string render();

}  // namespace net::metrics
