#include "query_log.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <os>

#include "keel/dns/name.hpp"
#include "keel/dns/rdata.hpp"

namespace dns_app {
namespace {
using namespace std::chrono_literals;
constexpr auto drain_interval = 100ms;
constexpr std::size_t drain_chunk = 8 * 1024;  // bytes per tick, so the console keeps up

const char* rcode_name(uint16_t rcode) {
  static constexpr const char* names[] = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN",
                                          "NOTIMP",  "REFUSED", "YXDOMAIN", "YXRRSET",
                                          "NXRRSET", "NOTAUTH", "NOTZONE"};
  if (rcode < sizeof names / sizeof names[0]) return names[rcode];
  return rcode == keel::dns::rcode::badvers ? "BADVERS" : "RCODE?";
}
}  // namespace

void QueryLog::start() {
  os::Timers::periodic(drain_interval, [this](os::Timers::id_t) { drain(); });
}

void QueryLog::observe(void* self, const keel::dns::QueryEvent& event) {
  static_cast<QueryLog*>(self)->record(event);
}

void QueryLog::record(const keel::dns::QueryEvent& e) {
  if (capacity - used_ < max_line) {
    ++dropped_;
    return;
  }
  const auto& b = e.client.bytes;
  const std::string name = e.qname.empty() ? std::string("-") : keel::dns::name_to_text(e.qname);
  char line[max_line];
  int n =
      std::snprintf(line, sizeof line, "query %u.%u.%u.%u#%u %.200s %s %s %zu\n", b[0], b[1], b[2],
                    b[3], e.client.port, name.c_str(), keel::dns::type_name(e.qtype).c_str(),
                    e.response_size ? rcode_name(e.rcode) : "DROPPED", e.response_size);
  if (n < 0) return;
  const std::size_t len = std::min<std::size_t>(std::size_t(n), sizeof line - 1);
  for (std::size_t i = 0; i < len; ++i) ring_[(head_ + used_ + i) % capacity] = line[i];
  used_ += len;
}

void QueryLog::drain() {
  std::size_t budget = drain_chunk;
  while (used_ > 0 && budget > 0) {
    const std::size_t run = std::min({used_, capacity - head_, budget});
    std::fwrite(ring_ + head_, 1, run, stdout);
    head_ = (head_ + run) % capacity;
    used_ -= run;
    budget -= run;
  }
  if (dropped_ != reported_dropped_) {
    std::printf("dns: query log dropped %llu lines (ring full)\n",
                static_cast<unsigned long long>(dropped_ - reported_dropped_));
    reported_dropped_ = dropped_;
  }
  std::fflush(stdout);
}

}  // namespace dns_app
