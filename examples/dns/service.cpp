// An authoritative DNS server appliance: the zones compiled into the image
// (keel_dns_zones in CMakeLists.txt) answered over UDP and TCP with lib/dns.
// Settings in config.hpp; docs/dns.md tells how to run it.
//
//   tools/keel boot examples/dns --tap tap0 --append "ip=10.0.0.2/24"
//   dig @10.0.0.2 www.example.com
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <os>

#include "config.hpp"
#include "dns_socket.hpp"
#include "keel/dns/blob.hpp"
#include "keel/dns/catalog.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/rdata.hpp"
#include "keel/dns/server.hpp"
#include "query_log.hpp"
#if KEEL_DNS_SECONDARY
#include "secondary.hpp"
#endif

// The compiled zones (keel_dns_zones in lib/dns/keel-library.cmake).
extern "C" const char keel_dns_zones_blob[];
extern "C" const char keel_dns_zones_blob_end[];

namespace {

using namespace std::chrono;
std::unique_ptr<keel::dns::Server> server;
dns_app::QueryLog query_log;

uint64_t uptime_ms() { return uint64_t(duration_cast<milliseconds>(os::uptime()).count()); }
// TSIG's time check (RFC 8945 §5.2.3) needs the wall clock: the guest's
// (docs/decisions/0087 says how far off it can be).
uint64_t unix_seconds() {
  return uint64_t(duration_cast<seconds>(os::wall_clock().time_since_epoch()).count());
}

void fail(const std::string& message) {
  std::printf("dns: %s\n", message.c_str());
  os::shutdown(1);
}

// Counters by rcode and by the most common types, on one line.
void print_stats() {
  const keel::dns::ServerStats& s = server->stats();
  std::printf(
      "dns: queries %llu dropped %llu truncated %llu prerendered %llu rrl-dropped %llu rrl-slipped "
      "%llu |",
      (unsigned long long)s.queries, (unsigned long long)s.dropped, (unsigned long long)s.truncated,
      (unsigned long long)s.prerendered, (unsigned long long)s.rate_limited_dropped,
      (unsigned long long)s.rate_limited_slipped);
  for (std::size_t r = 0; r < keel::dns::rcode::count; ++r) {
    if (s.by_rcode[r] != 0) std::printf(" rcode%zu %llu", r, (unsigned long long)s.by_rcode[r]);
  }
  const dns_app::TcpCounters& tcp = dns_app::tcp_counters();
  std::printf(
      " | tcp open %llu accepted %llu queries %llu refused-total %llu refused-per-client %llu "
      "idle-closed %llu bad %llu paused %llu",
      (unsigned long long)tcp.open, (unsigned long long)tcp.accepted,
      (unsigned long long)tcp.queries, (unsigned long long)tcp.refused_total,
      (unsigned long long)tcp.refused_per_client, (unsigned long long)tcp.idle_closed,
      (unsigned long long)tcp.bad_messages, (unsigned long long)tcp.paused);
  std::printf(" | xfr %llu refused %llu done %llu messages %llu waits %llu",
              (unsigned long long)s.transfers, (unsigned long long)s.transfers_refused,
              (unsigned long long)tcp.transfers, (unsigned long long)tcp.transfer_messages,
              (unsigned long long)tcp.transfer_waits);
  std::printf(" | tsig signed %llu refused %llu", (unsigned long long)s.tsig_signed,
              (unsigned long long)s.tsig_refused);
#if KEEL_DNS_SECONDARY
  const dns_app::SecondaryCounters& in = dns_app::secondary_counters();
  std::printf(
      " | secondary checks %llu current %llu transfers %llu ixfr %llu failed %llu too-big %llu "
      "notify %llu notify-refused %llu servfail %llu",
      (unsigned long long)in.checks, (unsigned long long)in.up_to_date,
      (unsigned long long)in.transfers, (unsigned long long)in.incremental,
      (unsigned long long)in.failed, (unsigned long long)in.too_big, (unsigned long long)in.notify,
      (unsigned long long)in.notify_refused, (unsigned long long)in.servfail);
#endif
  std::printf(" |");
  for (std::size_t t = 0; t <= keel::dns::ServerStats::type_slots; ++t) {
    if (s.by_qtype[t] == 0) continue;
    const std::string name =
        t == keel::dns::ServerStats::type_slots ? "other" : keel::dns::type_name(uint16_t(t));
    std::printf(" %s %llu", name.c_str(), (unsigned long long)s.by_qtype[t]);
  }
  std::printf("\n");
}

// The compiled-in zones the config names (all when it names none).
bool select_zones(const dns_app::Config& config, std::vector<keel::dns::ZoneData>& zones) {
  if (config.zones.empty()) return true;
  std::vector<keel::dns::ZoneData> chosen;
  for (const std::string& wanted : config.zones) {
    std::string text = wanted.ends_with(".") ? wanted : wanted + ".";
    auto it = std::find_if(zones.begin(), zones.end(), [&](const keel::dns::ZoneData& z) {
      const std::string have = keel::dns::name_to_text(z.origin);
      return have.size() == text.size() &&
             std::equal(have.begin(), have.end(), text.begin(), [](char a, char b) {
               return keel::dns::ascii_lower(uint8_t(a)) == keel::dns::ascii_lower(uint8_t(b));
             });
    });
    if (it == zones.end()) {
      fail("dns_zones: '" + wanted + "' is not compiled into this image");
      return false;
    }
    chosen.push_back(std::move(*it));
  }
  zones = std::move(chosen);
  return true;
}

}  // namespace

void Service::start() {
  const uint64_t started = uptime_ms();
  dns_app::Config config;
  if (std::string e = dns_app::load_config(config); !e.empty()) return fail(e);

  std::vector<keel::dns::ZoneData> zones;
  std::string error;
  const std::string_view blob(keel_dns_zones_blob,
                              std::size_t(keel_dns_zones_blob_end - keel_dns_zones_blob));
  if (!keel::dns::decode_blob(blob, zones, error)) return fail(error);
  if (!select_zones(config, zones)) return;
  std::vector<keel::dns::Diagnostic> errors;
  auto catalog = keel::dns::Catalog::build(zones, errors);
  for (const auto& d : errors) std::printf("dns: %s\n", d.to_string().c_str());
  if (!catalog) return fail("the zones do not load");
  std::vector<keel::dns::ZoneData>().swap(zones);  // the records are in the catalog now

  keel::dns::ServerOptions options;
  options.edns_payload = config.edns_payload;
  options.prerender = config.prerender;
  options.rate_limit = config.rate_limit;
  options.clock_ms = uptime_ms;
  options.transfer = config.transfer;
  options.tsig_keys = config.tsig_keys;
  options.clock_unix_s = unix_seconds;
  // RFC 7828: the idle timeout dns_tcp.cpp really applies.
  if (config.tcp.enabled) options.tcp_idle_ms = config.tcp.idle_timeout_ms;
  server = std::make_unique<keel::dns::Server>(std::move(catalog), options);
  const keel::dns::Catalog& c = server->catalog();
  const std::size_t bytes = c.memory().total() + server->prerendered_bytes();
  std::printf(
      "dns: zones %zu, names %zu, records %zu in %zu bytes (%zu per record, %zu pre-rendered "
      "answers), "
      "loaded in %llu ms\n",
      c.zone_count(), c.node_count(), c.record_count(), bytes,
      bytes / std::max<std::size_t>(c.record_count(), 1), server->prerendered_answers(),
      (unsigned long long)(uptime_ms() - started));

  if (config.query_log) {
    query_log.start();
    server->set_observer(&dns_app::QueryLog::observe, &query_log);
  }
  if (config.stats_interval != 0) {
    os::Timers::periodic(seconds(config.stats_interval), [](os::Timers::id_t) { print_stats(); });
  }
#if KEEL_DNS_SECONDARY
  const dns_app::SecondaryOptions secondary{config.secondaries, config.xfr_in_max, config.tsig_keys,
                                            options.edns_payload};
#endif
  const std::size_t bound = dns_app::listen(
      {config.port, config.address, config.tcp},
      [](std::span<const uint8_t> query, const keel::dns::ClientAddress& client,
         std::span<uint8_t> out, keel::dns::Transport transport, keel::dns::Transfer* transfer) {
#if KEEL_DNS_SECONDARY
        // NOTIFY and zones without a copy first (secondary.hpp); nothing when there are none.
        if (auto size = dns_app::secondary_answer(query, client, out)) return *size;
#endif
        return server->answer(query, client, out, transport, transfer);
      },
#if KEEL_DNS_SECONDARY
      [secondary](const std::string& where) {
        std::printf("dns: listening on %s\n", where.c_str());
        dns_app::start_secondaries(*server, secondary);  // once the network is up
      });
#else
      [](const std::string& where) { std::printf("dns: listening on %s\n", where.c_str()); });
#endif
  if (bound == 0) std::printf("dns: not listening (no network interface, or see above)\n");
}
