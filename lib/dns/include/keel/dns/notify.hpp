// A secondary's side of the answer path: NOTIFY (RFC 1996) for its zones,
// taken from their primary only, and SERVFAIL for a zone it has no copy of
// (not yet transferred, or expired), both as NSD answers them. A front end
// asks these first and gives every other query to Server::answer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "keel/dns/rate_limiter.hpp"
#include "keel/dns/secondary.hpp"
#include "keel/dns/tsig.hpp"

namespace keel::dns {

struct NotifyOutcome {
  bool handled = false;  // false: not a NOTIFY for one of the zones (Server::answer answers it)
  std::size_t size = 0;  // the response in `out`
  int zone = -1;         // the zone to check now (a NOTIFY that passed), or -1
  uint16_t rcode = 0;
  uint16_t tsig_error = 0;  // RFC 8945: BADKEY, BADSIG, BADTIME when refused so
};

// NSD's answer_notify: a TSIG, if there is one, is checked first (NOTAUTH with
// the TSIG error otherwise, RFC 8945 §5.2); then the sender must be the
// zone's primary (any port) with the zone's key, or none if it has none:
// otherwise REFUSED, header only. A NOTIFY that passes gets its header and
// question back with QR and AA (RFC 1996 §3), signed if it was.
NotifyOutcome answer_notify(std::span<const uint8_t> query, const ClientAddress& client,
                            const std::vector<SecondaryZone>& zones,
                            const std::vector<TsigKey>& keys, uint64_t now_unix,
                            std::span<uint8_t> out);

// A secondary zone without a copy: never loaded, or expired.
struct UnavailableZone {
  std::string origin;  // wire, lower case
  bool expired = false;
};

// NSD's answer for such a zone: SERVFAIL, the question kept, AA clear, and
// with EDNS an OPT of our payload size with an Extended DNS Error (RFC
// 8914): 14 Not Ready "Zone is configured but not loaded", or 24 Invalid
// Data "Zone has expired". For a query for a name in one of `zones` that no
// deeper zone of `served` (wire origins, lower case) holds; 0 for any other.
std::size_t answer_unavailable(std::span<const uint8_t> query,
                               const std::vector<UnavailableZone>& zones,
                               const std::vector<std::string>& served, uint16_t edns_payload,
                               std::span<uint8_t> out);

}  // namespace keel::dns
