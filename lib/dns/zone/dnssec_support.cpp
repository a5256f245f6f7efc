// The table of DNSSEC code (answer/dnssec_support.hpp): the object an image
// links when a signed zone is compiled in or link_dnssec() is called, and
// with it index_dnssec, Denial and NSEC3 hashing (decision 0141).
#include "answer/dnssec_support.hpp"

namespace keel::dns {
namespace {

void prove(const Catalog& catalog, const DnssecZone& zone, Proof kind, std::string_view name,
           uint32_t node, uint32_t other, Proofs& out) {
  const Denial denial(catalog, zone);
  switch (kind) {
    case Proof::nxdomain:
      return denial.nxdomain(name, node, out);
    case Proof::nodata:
      return denial.nodata(name, node, out);
    case Proof::wildcard:
      return denial.wildcard(name, node, out);
    case Proof::wildcard_nodata:
      return denial.wildcard_nodata(name, node, other, out);
    case Proof::insecure_referral:
      return denial.insecure_referral(node, out);
  }
}

}  // namespace

void link_dnssec() {}

}  // namespace keel::dns

extern "C" const keel::dns::DnssecSupport keel_dns_dnssec = {&keel::dns::index_dnssec,
                                                             &keel::dns::prove};
