// Redirect for a host (RFC 4861 §8): accepted only from the router this
// host sends the destination's packets to now, on the link it sends them
// on (§8.1), it sets the destination's first hop in the destination cache
// (§8.3): a better router, or the destination itself, on the link. A host
// sends none (§8.2 is a router's), and a router takes none.
#include "net/link/redirect.hpp"

#include "icmp6.hpp"
#include "net/stack_parts.hpp"

namespace net {

void Icmp6::redirect(const Ip6Received& info, const uint8_t* m, std::size_t len) {
  ++counters_.rx_redirects;
  if (parts_.ip6.forwarding()) {
    ++counters_.drop_redirect_forwarding;
    return;
  }
  RedirectRepr r;
  switch (parse_redirect(info.header.src, m, len, r)) {
    case RedirectError::none:
      break;
    case RedirectError::bad_source:
      ++counters_.drop_redirect_bad_source;
      return;
    case RedirectError::bad_format:
      ++counters_.drop_redirect_bad_format;
      return;
  }
  // §8.1: "the IP source address of the Redirect is the same as the current
  // first-hop router for the specified ICMP Destination Address" (so a
  // destination on the link, reached without a router, takes none).
  auto path = parts_.ip6.route(r.destination);
  if (!path || path->interface != info.in || path->next_hop != info.header.src ||
      path->next_hop == r.destination) {
    ++counters_.drop_redirect_bad_source;
    return;
  }
  // §8.3: the target's link-layer address updates or creates (STALE) its
  // neighbour entry, as a solicitation's source option does (§7.2.3).
  if (r.target_mac) parts_.link(info.in).ndp().learn(r.target, *r.target_mac);
  parts_.ip6.destinations().redirect(r.destination, info.in, r.target, parts_.time.now());
  ++counters_.redirects_accepted;
}

}  // namespace net
