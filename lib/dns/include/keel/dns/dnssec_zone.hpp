// What the answer path needs to know of a signed zone (RFC 4035 §3.1): that
// it is signed, its NSEC owners in canonical order (RFC 4034 §6.1) to find
// the record covering a name, and with NSEC3 (RFC 5155) its hash parameters
// and the hashed owners in hash order. Built once at load from the records
// the signer wrote; Keel does not sign (docs/decisions/0145).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel::dns {

class Catalog;

// RFC 5155 §3.1.1 defines one hash algorithm, SHA-1.
inline constexpr std::size_t nsec3_hash_size = 20;
inline constexpr uint8_t nsec3_sha1 = 1;
using Nsec3Hash = std::array<uint8_t, nsec3_hash_size>;

struct Nsec3Owner {
  Nsec3Hash hash;
  uint32_t node;
};

struct DnssecZone {
  bool secure = false;  // the apex holds RRSIGs (NSD's zone_is_secure)
  bool nsec3 = false;   // an NSEC3PARAM at the apex with SHA-1 and NSEC3 records
  uint16_t iterations = 0;
  std::string salt;
  std::vector<uint32_t> nsec;      // nodes with an NSEC RRset, in canonical order
  std::vector<Nsec3Owner> hashed;  // nodes with an NSEC3 RRset, by hash
};

// One entry per zone of the catalog (none when no zone is signed).
std::vector<DnssecZone> index_dnssec(const Catalog& catalog);

// Images link the DNSSEC code (the index, the proofs) only when something
// asks for it (decision 0141): keel_dns_zones() does when a compiled-in zone
// is signed; a service that loads zones at run time (a secondary, which may
// be given signed ones) calls this once. Without it, signed zones are served
// as unsigned ones. The host build always links it.
void link_dnssec();

// RFC 4034 §6.1: labels compared from the right, each as lowercased octets.
int canonical_compare(std::string_view a, std::string_view b);

// RFC 5155 §5: the iterated, salted SHA-1 of the lowercased wire name.
Nsec3Hash nsec3_hash(const DnssecZone& zone, std::string_view lowered_name);

}  // namespace keel::dns
