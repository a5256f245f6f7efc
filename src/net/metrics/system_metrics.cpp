// The image's metrics (api/net/metrics.hpp): net::stack() and the console's
// drops (src/kernel/console.hpp, decision 0114). Images and the Linux
// process only: the host's tests have no kernel console.
#include <net/metrics.hpp>
#include <net/stack.hpp>
#include <os>

#include "kernel/console.hpp"

namespace net::metrics {

std::string render() {
  std::string out;
  const keel::console::Counters& c = keel::console::counters();
  Writer w(out);
  w.family("keel_console_written_bytes_total", "Bytes the console took into its ring",
           Type::counter);
  w.sample(c.written_bytes);
  w.family("keel_console_dropped_writes_total",
           "Console writes dropped whole: the ring was full (decision 0114)", Type::counter);
  w.sample(c.dropped_writes);
  w.family("keel_console_dropped_bytes_total", "Bytes of the dropped console writes",
           Type::counter);
  w.sample(c.dropped_bytes);
  w.family("keel_memory_in_use_bytes",
           "Memory in use (kvm: pages handed out; linux: resident set; os::memory_in_use)",
           Type::gauge);
  w.sample(os::memory_in_use());
  render(net::stack(), out);
  return out;
}

}  // namespace net::metrics
