// The DNSSEC code the answer path and the catalog builder reach through one
// table, so that an image links it only when it may serve a signed zone
// (decision 0141): keel_dns_zones() names keel_dns_dnssec when a compiled-in
// zone is signed, and a service that loads zones at run time (a secondary)
// calls link_dnssec(). Elsewhere the table is absent: no zone is indexed as
// signed, so no answer asks for a proof. The host build always has it.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "answer/denial.hpp"
#include "keel/dns/catalog.hpp"
#include "keel/dns/dnssec_zone.hpp"

namespace keel::dns {

// Denial's proofs, by name.
enum class Proof : uint8_t { nxdomain, nodata, wildcard, wildcard_nodata, insecure_referral };

struct DnssecSupport {
  std::vector<DnssecZone> (*index)(const Catalog& catalog);  // index_dnssec
  // Denial's `kind` for `name` at `node` (wildcard_nodata: `node` is the
  // encloser and `other` the wildcard).
  void (*prove)(const Catalog& catalog, const DnssecZone& zone, Proof kind, std::string_view name,
                uint32_t node, uint32_t other, Proofs& out);
};

}  // namespace keel::dns

// Weak in images (keel-library.cmake): a reference that does not make the
// linker take the object defining it (zone/dnssec_support.cpp).
#if KEEL_DNS_DNSSEC_ON_DEMAND
extern "C" const keel::dns::DnssecSupport keel_dns_dnssec __attribute__((weak));
#else
extern "C" const keel::dns::DnssecSupport keel_dns_dnssec;
#endif

namespace keel::dns {

// Null when the image links no DNSSEC code.
inline const DnssecSupport* dnssec_support() { return &keel_dns_dnssec; }

}  // namespace keel::dns
