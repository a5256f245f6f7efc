// Replacing one served zone while the others stay (a secondary's transfer
// done): the zones are read back out of the running catalog, the new copy
// put in place of the old, and a new catalog built and checked. The caller
// hands it to Server::replace_catalog, which swaps it in between two
// queries; until then, and if anything fails, the old catalog answers
// (docs/decisions/0140).
#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "keel/dns/catalog.hpp"
#include "keel/dns/zone_data.hpp"

namespace keel::dns {

// The records of served zone `zone`, as the catalog holds them (RRsets in
// node order; RFC 5936 §2.2 leaves the order free, and Catalog::build takes
// any).
ZoneData zone_data_of(const Catalog& catalog, uint16_t zone);

// The index of the served zone with this origin (any case), or -1.
int find_zone(const Catalog& catalog, std::string_view origin);

// A catalog of every zone of `current`, with `replacement` in place of the
// zone of the same origin (or added, if `current` has none such). nullptr
// with `errors` if the new zone does not pass the checks.
std::unique_ptr<Catalog> replace_zone(const Catalog& current, ZoneData replacement,
                                      std::vector<Diagnostic>& errors);

}  // namespace keel::dns
