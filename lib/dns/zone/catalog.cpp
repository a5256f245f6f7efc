// Catalog lookups: no allocation, bounded probes.
#include "keel/dns/catalog.hpp"

#include "keel/dns/name.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {

uint32_t Catalog::find(std::string_view lowered, uint32_t hash) const {
  const std::size_t mask = index_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t n = index_[i];
    if (n == no_node) return no_node;  // the builder leaves at least half the slots empty
    if (nodes_[n].hash == hash) {
      const std::string_view stored = name(n);
      if (names_equal(stored, lowered)) return n;
    }
  }
}

uint32_t Catalog::find(std::string_view lowered) const { return find(lowered, name_hash(lowered)); }

uint32_t Catalog::find_in_zone(std::string_view lowered, uint32_t hash, uint16_t zone) const {
  for (uint32_t n = find(lowered, hash); n != no_node; n = nodes_[n].next_zone) {
    if (nodes_[n].zone == zone) return n;
  }
  return no_node;
}

int Catalog::zone_for(std::string_view lowered) const {
  // The first apex met walking from the full name towards the root is the deepest zone.
  for (std::string_view suffix = lowered;; suffix = strip_labels(suffix, 1)) {
    for (uint32_t n = find(suffix); n != no_node; n = nodes_[n].next_zone) {
      if (nodes_[n].flags & node_flag::apex) return nodes_[n].zone;
    }
    if (suffix.size() <= 1) return -1;
  }
}

const RRset* Catalog::find_rrset(uint32_t n, uint16_t type) const {
  for (const RRset& set : rrsets(n))
    if (set.type == type) return &set;
  return nullptr;
}

RRView Catalog::rr_at(std::size_t at) const {
  const uint32_t ttl = load32(rdata_, at);
  const uint16_t length = load16(rdata_, at + 4);
  return {ttl, std::string_view(rdata_).substr(at + 6, length)};
}

CatalogMemory Catalog::memory() const {
  CatalogMemory m;
  m.nodes = nodes_.capacity() * sizeof(Node);
  m.rrsets = rrsets_.capacity() * sizeof(RRset);
  m.names = names_.capacity();
  m.rdata = rdata_.capacity();
  m.index = index_.capacity() * sizeof(uint32_t);
  m.zones = zones_.capacity() * sizeof(Zone);
  for (const Zone& z : zones_) m.zones += z.origin.capacity();
  m.dnssec = dnssec_.capacity() * sizeof(DnssecZone);
  for (const DnssecZone& z : dnssec_) {
    m.dnssec += z.nsec.capacity() * sizeof(uint32_t) + z.hashed.capacity() * sizeof(Nsec3Owner);
  }
  return m;
}

}  // namespace keel::dns
