// The NSEC or NSEC3 records a signed zone adds to an answer for a query with
// DO set: proofs that a name or a type does not exist (RFC 4035 §3.1.3,
// RFC 5155 §7.2), that a wildcard answered, and that a delegation has no DS
// (RFC 4035 §3.1.4). Each proof is an RRset of the zone; the resolver adds
// them to the authority section with their RRSIGs.
#pragma once
#include <cstdint>
#include <string_view>

#include "keel/dns/catalog.hpp"
#include "keel/dns/dnssec_zone.hpp"

namespace keel::dns {

struct Proofs {
  static constexpr int max = 4;  // the most any answer needs: RFC 5155 §7.2.5's three
  uint32_t nodes[max];
  const RRset* sets[max];
  int count = 0;

  void add(uint32_t node, const RRset* set);  // once each; ignores a missing set
};

class Denial {
 public:
  Denial(const Catalog& catalog, const DnssecZone& zone) : catalog_(catalog), zone_(zone) {}

  // `name` (lowercased) does not exist; `encloser` is its closest encloser.
  void nxdomain(std::string_view name, uint32_t encloser, Proofs& out) const;
  // `node`, named `name` (an empty non-terminal too), has no RRset of the type asked.
  void nodata(std::string_view name, uint32_t node, Proofs& out) const;
  // The wildcard of `encloser` answered for `name`: no closer match exists.
  void wildcard(std::string_view name, uint32_t encloser, Proofs& out) const;
  // ... and it has no RRset of the type asked (RFC 4035 §3.1.3.4, RFC 5155 §7.2.5).
  void wildcard_nodata(std::string_view name, uint32_t encloser, uint32_t wildcard,
                       Proofs& out) const;
  // A referral to `cut`, which has no DS RRset.
  void insecure_referral(uint32_t cut, Proofs& out) const;

 private:
  // NSEC: the record at or before `name` in canonical order (wrapping round).
  uint32_t nsec_covering(std::string_view name) const;
  void add_nsec(uint32_t node, Proofs& out) const;
  // NSEC3: the hashed owner matching `name`, or no_node; the one covering it.
  uint32_t nsec3_matching(std::string_view name) const;
  uint32_t nsec3_covering(std::string_view name) const;
  void add_nsec3(uint32_t node, Proofs& out) const;
  // RFC 5155 §7.2.1: the closest encloser's NSEC3 and the next closer name's cover.
  void closest_encloser_proof(std::string_view name, std::string_view encloser, Proofs& out) const;
  // RFC 5155 §7.2.4: the same from the closest ancestor of `name` that has an NSEC3.
  void closest_provable_encloser_proof(std::string_view name, Proofs& out) const;

  const Catalog& catalog_;
  const DnssecZone& zone_;
};

}  // namespace keel::dns
