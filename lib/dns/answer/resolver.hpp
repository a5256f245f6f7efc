// RFC 1034 §4.3.2 over the catalog, as NSD 4 does it (query.c,
// answer_lookup_zone): zone cuts and referrals with glue, CNAME chains (also
// across served zones), DNAME (RFC 6672), wildcards (RFC 4592), negative
// answers with the SOA (RFC 2308), RFC 8482 one-RRset ANY answers and
// minimal responses (additional data only for NS).
#pragma once
#include <cstdint>
#include <string_view>

#include "answer/plan.hpp"
#include "keel/dns/catalog.hpp"

namespace keel::dns {

struct Request {
  std::string_view name;  // wire, as sent
  uint16_t type = 0;
  uint16_t rclass = 0;
  bool client_ipv6 = false;  // NSD lists AAAA glue first for IPv6 clients
  bool dnssec_ok = false;    // RFC 3225 DO: signatures and proofs from signed zones
};

void resolve(const Catalog& catalog, const Request& request, Plan& plan);

}  // namespace keel::dns
