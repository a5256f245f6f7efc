// A new catalog with one zone replaced (zone_swap.hpp).
#include "keel/dns/zone_swap.hpp"

#include "keel/dns/name.hpp"

namespace keel::dns {

ZoneData zone_data_of(const Catalog& catalog, uint16_t zone) {
  ZoneData out;
  out.origin = catalog.zone(zone).origin;
  for (uint32_t n = 0; n < catalog.node_count(); ++n) {
    if (catalog.node(n).zone != zone) continue;
    const std::string_view owner = catalog.name(n);
    for (const RRset& set : catalog.rrsets(n)) {
      catalog.for_each_rr(set, [&](const RRView& rr) {
        out.records.push_back({std::string(owner), set.type, rr.ttl, std::string(rr.rdata), {}});
        return true;
      });
    }
  }
  return out;
}

int find_zone(const Catalog& catalog, std::string_view origin) {
  for (std::size_t z = 0; z < catalog.zone_count(); ++z) {
    if (names_equal(catalog.zone(uint16_t(z)).origin, origin)) return int(z);
  }
  return -1;
}

std::unique_ptr<Catalog> replace_zone(const Catalog& current, ZoneData replacement,
                                      std::vector<Diagnostic>& errors) {
  std::vector<ZoneData> zones;
  zones.reserve(current.zone_count() + 1);
  bool replaced = false;
  for (std::size_t z = 0; z < current.zone_count(); ++z) {
    if (names_equal(current.zone(uint16_t(z)).origin, replacement.origin)) {
      zones.push_back(std::move(replacement));
      replaced = true;
    } else {
      zones.push_back(zone_data_of(current, uint16_t(z)));
    }
  }
  if (!replaced) zones.push_back(std::move(replacement));
  return Catalog::build(zones, errors);
}

}  // namespace keel::dns
