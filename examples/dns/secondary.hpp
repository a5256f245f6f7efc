// The appliance as a secondary (dns_secondary=): for each such zone, ask the
// primary for its SOA over TCP at boot, after a NOTIFY and on the SOA's
// refresh and retry timers; when its serial is newer (RFC 1982), transfer
// the zone (IXFR from the copy we have, AXFR otherwise or when IXFR
// fails) and swap the new copy in (Server::replace_catalog) while the old
// one keeps answering. Expired or never-loaded zones answer SERVFAIL.
// The protocol logic is lib/dns's (keel/dns/secondary.hpp, xfr_in.hpp,
// notify.hpp, zone_swap.hpp); this file holds the connections and timers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "keel/dns/rate_limiter.hpp"
#include "keel/dns/secondary.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/tsig.hpp"

namespace dns_app {

struct SecondaryOptions {
  std::vector<keel::dns::SecondaryZone> zones;  // dns_secondary=
  std::size_t max_transfer = 0;                 // dns_xfr_in_max= (octets)
  std::vector<keel::dns::TsigKey> keys;         // dns_key=
  uint16_t edns_payload = 1232;                 // dns_edns_payload=: in SERVFAIL's OPT
};

// What the secondary side did (the stats line prints it).
struct SecondaryCounters {
  uint64_t checks = 0;       // SOA queries sent to a primary
  uint64_t up_to_date = 0;   // ... whose serial was not newer
  uint64_t transfers = 0;    // zone copies swapped in
  uint64_t incremental = 0;  // ... of them from an IXFR
  uint64_t failed = 0;       // checks or transfers that failed (the old copy kept)
  uint64_t too_big = 0;      // ... of them over dns_xfr_in_max=
  uint64_t notify = 0;       // NOTIFY taken
  uint64_t notify_refused = 0;
  uint64_t servfail = 0;  // queries for a zone without a copy
};

// Starts the checks (call once the network is up); `server` must outlive it.
void start_secondaries(keel::dns::Server& server, const SecondaryOptions& options);
// NOTIFY for a secondary zone, or SERVFAIL for one without a copy: the
// response size in `out`; nullopt for every other query (Server::answer's).
std::optional<std::size_t> secondary_answer(std::span<const uint8_t> query,
                                            const keel::dns::ClientAddress& client,
                                            std::span<uint8_t> out);
const SecondaryCounters& secondary_counters();

}  // namespace dns_app
