// The appliance's secondary zones (secondary.hpp): one TCP connection to
// the primary per check, carrying the SOA query and then, if the serial is
// newer, the IXFR or AXFR (RFC 7766 §6.2.1: several queries on one
// connection). Every message is length-framed (RFC 1035 §4.2.2), checked
// by TSIG when the zone has a key, and read by keel::dns::XfrIn, which
// bounds the octets taken (dns_xfr_in_max=).
#include "secondary.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <net/stack.hpp>
#include <net/tcp_stream.hpp>
#include <os>
#include <string>

#include "keel/dns/constants.hpp"
#include "keel/dns/dnssec_zone.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/notify.hpp"
#include "keel/dns/xfr_in.hpp"
#include "keel/dns/zone_swap.hpp"

namespace dns_app {
namespace {

using namespace std::chrono;
using keel::dns::SecondaryTimers;
using keel::dns::XfrIn;
namespace rr_type = keel::dns::rr_type;

constexpr std::size_t length_octets = 2;  // RFC 1035 §4.2.2
// A primary that sends nothing for this long fails the check (the next
// comes after the SOA's RETRY).
constexpr milliseconds silence_limit{30'000};
constexpr uint32_t receive_buffer = 64 * 1024;  // one largest message

uint64_t now_ms() { return uint64_t(duration_cast<milliseconds>(os::uptime()).count()); }
uint64_t unix_s() {
  return uint64_t(duration_cast<seconds>(os::wall_clock().time_since_epoch()).count());
}

struct Exchange;

struct Zone {
  keel::dns::SecondaryZone config;
  std::string name;  // for messages: "example.org"
  const keel::dns::TsigKey* key = nullptr;
  SecondaryTimers timers;
  os::Timers::id_t timer = os::Timers::invalid_id;
  std::shared_ptr<Exchange> exchange;  // a check in progress
  bool notified = false;               // a NOTIFY came during the check: check again after
  bool force_axfr = false;             // the last IXFR failed: AXFR next
};

keel::dns::Server* server = nullptr;
SecondaryOptions settings;
std::vector<std::unique_ptr<Zone>> zones;
SecondaryCounters counters;
std::vector<keel::dns::UnavailableZone> unavailable;  // zones without a copy
std::vector<std::string> served;                      // origins (lower case) of the catalog's zones
uint16_t next_id = 0;
// A query: the question, an IXFR's SOA and a TSIG, each with names of at
// most 255 octets, fit in 2 KiB (not a 64 KiB answer buffer's worth of .bss).
constexpr std::size_t max_query_size = 2048;
std::array<uint8_t, length_octets + max_query_size> query;

void check(Zone& zone);

// The zone lists answer_unavailable looks at, and the zone's next wake-up.
void update(Zone* changed) {
  const uint64_t now = now_ms();
  unavailable.clear();
  for (const auto& z : zones) {
    const SecondaryTimers::State state = z->timers.state(now);
    if (state != SecondaryTimers::State::loaded)
      unavailable.push_back({z->config.origin, state == SecondaryTimers::State::expired});
  }
  served.clear();
  const keel::dns::Catalog& catalog = server->catalog();
  for (std::size_t i = 0; i < catalog.zone_count(); ++i)
    served.push_back(keel::dns::lowercase_name(catalog.zone(uint16_t(i)).origin));
  if (changed == nullptr || changed->exchange) return;
  uint64_t wake = changed->timers.due_at();
  if (changed->timers.state(now) == SecondaryTimers::State::loaded)
    wake = std::min(wake, changed->timers.expires_at());
  os::Timers::arm(changed->timer, milliseconds(wake > now ? wake - now : 0));
}

std::string primary_text(const Zone& zone) {
  const auto& b = zone.config.primary.bytes;
  return std::to_string(b[0]) + "." + std::to_string(b[1]) + "." + std::to_string(b[2]) + "." +
         std::to_string(b[3]) + "#" + std::to_string(zone.config.primary.port);
}

// One check of one zone: SOA, then maybe a transfer, on one connection.
struct Exchange : std::enable_shared_from_this<Exchange> {
  Zone* zone = nullptr;
  net::TcpStream stream;
  os::Timers::id_t timer = os::Timers::invalid_id;
  std::unique_ptr<keel::dns::TsigClient> tsig;
  std::unique_ptr<XfrIn> xfr;
  keel::dns::ZoneData current;  // the copy an IXFR applies to
  uint16_t id = 0;
  uint16_t qtype = rr_type::soa;
  bool over = false;

  bool start() {
    const auto& b = zone->config.primary.bytes;
    const net::Endpoint primary{
        net::ip4::Addr(uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3]),
        zone->config.primary.port};
    net::TcpOptions tcp;
    tcp.auto_consume = false;  // the stream releases input itself
    tcp.no_delay = true;
    tcp.receive_buffer = receive_buffer;
    auto connection = net::stack().tcp().connect(
        primary, [](net::TcpConnection) {}, tcp);
    if (!connection) return fail(std::string("connect: ") + net::to_string(connection.status));
    auto opened = net::TcpStream::open(*connection);
    if (!opened) return fail("cannot open a stream");
    stream = *opened;
    std::weak_ptr<Exchange> weak = shared_from_this();
    timer = os::Timers::create([weak](os::Timers::id_t) {
      if (auto self = weak.lock()) self->fail("no answer from the primary");
    });
    os::Timers::arm(timer, silence_limit);
    (void)stream.on_close([weak](net::TcpCloseReason reason) {
      if (auto self = weak.lock())
        self->fail(std::string("the connection ended: ") + net::to_string(reason));
    });
    (void)stream.on_end([weak](std::span<const uint8_t>) {
      if (auto self = weak.lock()) self->fail("the primary closed the connection");
    });
    if (zone->key) tsig = std::make_unique<keel::dns::TsigClient>(*zone->key);
    read_length();
    return send(rr_type::soa, std::nullopt);
  }

  // Sends the query and sets up the reader of its answer.
  bool send(uint16_t type, std::optional<uint32_t> serial,
            const keel::dns::ZoneData* copy = nullptr) {
    qtype = type;
    id = ++next_id;
    const std::size_t limit =
        type == rr_type::soa ? keel::dns::max_message_size : settings.max_transfer;
    xfr = std::make_unique<XfrIn>(zone->config.origin, id, type, limit, copy);
    const std::size_t size =
        keel::dns::write_xfr_query(std::span(query).subspan(length_octets), id, zone->config.origin,
                                   type, serial, tsig.get(), unix_s());
    query[0] = uint8_t(size >> 8);
    query[1] = uint8_t(size);
    if (size == 0 || stream.write(std::span(query.data(), length_octets + size)) != net::Status::ok)
      return fail("cannot send the query");
    return true;
  }

  void read_length() {
    std::weak_ptr<Exchange> weak = shared_from_this();
    (void)stream.on_bytes(length_octets, [weak](std::span<const uint8_t> prefix) {
      auto self = weak.lock();
      if (!self) return;
      const std::size_t length = std::size_t(prefix[0]) << 8 | prefix[1];
      if (length == 0) return (void)self->fail("a zero-length message");
      (void)self->stream.on_bytes(length, [weak](std::span<const uint8_t> m) {
        if (auto s = weak.lock()) s->on_message(m);
      });
    });
  }

  void on_message(std::span<const uint8_t> bytes) {
    if (over) return;
    os::Timers::arm(timer, silence_limit);
    const std::string_view m(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (tsig) {
      if (std::string why = tsig->verify(m, unix_s()); !why.empty()) {
        keel::dns::Header h;  // an error answered unsigned says more by its RCODE
        if (keel::dns::read_header(m, h) && h.rcode() != 0)
          why += ", RCODE " + std::to_string(h.rcode());
        return (void)fail("TSIG: " + why);
      }
    }
    const XfrIn::Status status = xfr->feed(m);
    if (status == XfrIn::Status::more) return read_length();
    if (status == XfrIn::Status::failed) {
      if (xfr->over_limit()) {
        ++counters.too_big;  // no AXFR after it: the zone would be as big
        return (void)fail(xfr->error());
      }
      return (void)fail(xfr->error(), qtype == rr_type::ixfr);
    }
    if (tsig && !tsig->last_signed()) return (void)fail("TSIG: the last message is not signed");
    if (qtype == rr_type::soa) return on_soa();
    if (status == XfrIn::Status::up_to_date) return finish_up_to_date();
    return install();
  }

  // The SOA query's answer (XfrIn read it): transfer if the serial is newer.
  void on_soa() {
    const uint32_t theirs = xfr->serial();
    const auto ours = zone->timers.serial();
    if (ours && !keel::dns::serial_greater(theirs, *ours)) return finish_up_to_date();
    const int z = keel::dns::find_zone(server->catalog(), zone->config.origin);
    if (ours && z >= 0 && !zone->force_axfr) {
      current = keel::dns::zone_data_of(server->catalog(), uint16_t(z));
      if (send(rr_type::ixfr, ours, &current)) read_length();
      return;
    }
    if (send(rr_type::axfr, std::nullopt)) read_length();
  }

  void finish_up_to_date() {
    ++counters.up_to_date;
    zone->timers.on_up_to_date(now_ms());
    end();
  }

  void install() {
    const uint32_t serial = xfr->serial();
    const bool incremental = xfr->incremental();
    std::vector<keel::dns::Diagnostic> errors;
    auto catalog = keel::dns::replace_zone(server->catalog(), std::move(xfr->zone()), errors);
    if (!catalog) {
      for (const auto& d : errors)
        std::printf("dns: secondary %s: %s\n", zone->name.c_str(), d.to_string().c_str());
      return (void)fail("the transferred zone does not load");
    }
    server->replace_catalog(std::move(catalog));
    const int z = keel::dns::find_zone(server->catalog(), zone->config.origin);
    const auto& c = server->catalog();
    const auto soa = keel::dns::read_soa(c.first_rr(c.rrset(c.zone(uint16_t(z)).soa)).rdata);
    zone->timers.on_loaded(*soa, now_ms());
    zone->force_axfr = false;
    ++counters.transfers;
    counters.incremental += incremental ? 1 : 0;
    std::printf("dns: secondary %s: serial %u from %s (%s, %zu octets in %zu messages)\n",
                zone->name.c_str(), serial, primary_text(*zone).c_str(),
                incremental ? "IXFR" : "AXFR", xfr->bytes(), xfr->messages());
    end();
  }

  // A failed IXFR is followed by an AXFR at once (RFC 1995 §4 lets a primary
  // answer either way; anything unexpected gets the plain transfer).
  bool fail(const std::string& why, bool try_axfr = false) {
    if (over) return false;
    ++counters.failed;
    std::printf("dns: secondary %s: %s failed: %s\n", zone->name.c_str(),
                qtype == rr_type::soa ? "check" : (qtype == rr_type::ixfr ? "IXFR" : "AXFR"),
                why.c_str());
    if (try_axfr && !zone->force_axfr) {
      zone->force_axfr = true;
      zone->notified = true;  // check again at once, with AXFR
    } else {
      zone->timers.on_failed(now_ms());
    }
    end();
    return false;
  }

  void end() {
    if (over) return;
    over = true;
    os::Timers::stop(timer);
    (void)stream.close();
    Zone& z = *zone;
    auto keep = std::move(z.exchange);  // this object lives until we return
    update(&z);
    if (z.notified) {
      z.notified = false;
      z.timers.on_notify(now_ms());
      update(&z);
    }
  }
};

void check(Zone& zone) {
  if (zone.exchange) return;
  ++counters.checks;
  zone.exchange = std::make_shared<Exchange>();
  zone.exchange->zone = &zone;
  auto keep = zone.exchange;
  keep->start();
}

}  // namespace

const SecondaryCounters& secondary_counters() { return counters; }

void start_secondaries(keel::dns::Server& s, const SecondaryOptions& options) {
  // A primary may send signed zones: serve them as such (decision 0141).
  keel::dns::link_dnssec();
  if (server != nullptr || options.zones.empty()) return;
  server = &s;
  settings = options;
  next_id = uint16_t(now_ms());
  for (const auto& config : settings.zones) {
    auto zone = std::make_unique<Zone>();
    zone->config = config;
    zone->name = keel::dns::name_to_text(config.origin);
    for (const auto& k : settings.keys)
      if (!config.key.empty() && k.name == config.key) zone->key = &k;
    // A compiled-in copy of the zone serves until the primary has a newer one.
    const keel::dns::Catalog& c = server->catalog();
    if (const int z = keel::dns::find_zone(c, config.origin); z >= 0) {
      const auto soa = keel::dns::read_soa(c.first_rr(c.rrset(c.zone(uint16_t(z)).soa)).rdata);
      if (soa) zone->timers.on_loaded(*soa, now_ms());
    }
    Zone* raw = zone.get();
    zone->timer = os::Timers::create([raw](os::Timers::id_t) { check(*raw); });
    zones.push_back(std::move(zone));
  }
  for (const auto& z : zones) {
    z->timers.on_notify(now_ms());  // ask every primary now
    update(z.get());
  }
}

std::optional<std::size_t> secondary_answer(std::span<const uint8_t> q,
                                            const keel::dns::ClientAddress& client,
                                            std::span<uint8_t> out) {
  if (zones.empty()) return std::nullopt;
  const auto notify =
      keel::dns::answer_notify(q, client, settings.zones, settings.keys, unix_s(), out);
  if (notify.handled) {
    if (notify.zone < 0) {
      ++counters.notify_refused;
    } else {
      ++counters.notify;
      Zone& zone = *zones[std::size_t(notify.zone)];
      if (zone.exchange) {
        zone.notified = true;  // check again once this one is over
      } else {
        zone.timers.on_notify(now_ms());
        update(&zone);
      }
    }
    return notify.size;
  }
  // Expiry is a matter of time: look again now.
  const uint64_t now = now_ms();
  for (const auto& z : zones) {
    const bool listed = std::any_of(unavailable.begin(), unavailable.end(),
                                    [&](const auto& u) { return u.origin == z->config.origin; });
    if (listed != (z->timers.state(now) != SecondaryTimers::State::loaded)) {
      update(nullptr);
      break;
    }
  }
  if (const std::size_t size =
          keel::dns::answer_unavailable(q, unavailable, served, settings.edns_payload, out)) {
    ++counters.servfail;
    return size;
  }
  return std::nullopt;
}

}  // namespace dns_app
