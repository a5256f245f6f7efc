// The served zones as one lookup structure, built once at load time: nodes
// (owner names, empty non-terminals included) in one open-addressed hash
// table keyed by the lowercased name, RRsets in arrays, names and RDATA in
// two byte arenas. Lookups allocate nothing.
//
// A name that several served zones share (a child zone's apex is also a
// delegation in its parent) has one node per zone, chained from the deepest
// zone's node, which is the one in the table.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/dns/dnssec_zone.hpp"
#include "keel/dns/zone_data.hpp"

namespace keel::dns {

inline constexpr uint32_t no_node = 0xffffffffu;

namespace node_flag {
inline constexpr uint16_t apex = 1 << 0;
inline constexpr uint16_t delegation = 1 << 1;        // NS at a name below the apex: a zone cut
inline constexpr uint16_t below_delegation = 1 << 2;  // a strict ancestor is a cut (glue, occluded)
inline constexpr uint16_t has_dname = 1 << 3;
inline constexpr uint16_t below_dname = 1 << 4;     // a strict ancestor has a DNAME (occluded)
inline constexpr uint16_t wildcard_child = 1 << 5;  // "*.<this name>" exists in the zone
inline constexpr uint16_t deepest_zone = 1 << 6;    // no deeper served zone encloses the name
}  // namespace node_flag

struct Node {
  uint32_t name = 0;             // offset in the name arena: [length][wire name, zone-file case]
  uint32_t hash = 0;             // name_hash() of the lowercased name
  uint32_t parent = no_node;     // the node one label up, in the same zone (none at the apex)
  uint32_t next_zone = no_node;  // the same name in the next shallower zone
  uint32_t first_rrset = 0;
  uint16_t rrset_count = 0;  // 0: an empty non-terminal
  uint16_t zone = 0;
  uint16_t flags = 0;
};

// RRsets keep the order of their first record in the zone file.
struct RRset {
  uint16_t type = 0;
  uint16_t count = 0;
  uint32_t data = 0;  // offset in the RDATA arena of `count` x [TTL u32][length u16][RDATA]
};

struct Zone {
  uint32_t apex = no_node;
  uint32_t soa = 0;           // RRset index of the apex SOA
  uint32_t negative_ttl = 0;  // RFC 2308 §5: min(SOA TTL, SOA MINIMUM)
  std::string origin;         // wire, as in the zone file
};

// One resource record of an RRset.
// Each record in the RDATA arena: [TTL u32][RDLENGTH u16][RDATA].
inline constexpr std::size_t rr_header_size = 6;

struct RRView {
  uint32_t ttl;
  std::string_view rdata;
};

struct CatalogMemory {
  std::size_t nodes = 0, rrsets = 0, names = 0, rdata = 0, index = 0, zones = 0;
  std::size_t dnssec = 0;  // the NSEC and NSEC3 owner indexes of signed zones
  std::size_t total() const { return nodes + rrsets + names + rdata + index + zones + dnssec; }
};

class Catalog {
 public:
  // Checks every zone (see docs/dns.md, "Zone checks") and indexes them.
  // Returns nullptr and appends to `errors` if any check fails.
  static std::unique_ptr<Catalog> build(const std::vector<ZoneData>& zones,
                                        std::vector<Diagnostic>& errors);

  // The node for a lowercased wire name (the deepest zone's), or no_node.
  uint32_t find(std::string_view lowered, uint32_t hash) const;
  uint32_t find(std::string_view lowered) const;
  // The node for the name in `zone`, or no_node.
  uint32_t find_in_zone(std::string_view lowered, uint32_t hash, uint16_t zone) const;
  // The deepest served zone at or above the lowercased name, or -1.
  int zone_for(std::string_view lowered) const;

  const Node& node(uint32_t n) const { return nodes_[n]; }
  std::string_view name(uint32_t n) const {
    const uint32_t at = nodes_[n].name;
    return std::string_view(names_.data() + at + 1, static_cast<uint8_t>(names_[at]));
  }
  std::span<const RRset> rrsets(uint32_t n) const {
    return {rrsets_.data() + nodes_[n].first_rrset, nodes_[n].rrset_count};
  }
  const RRset* find_rrset(uint32_t n, uint16_t type) const;
  uint32_t rrset_index(const RRset* set) const { return uint32_t(set - rrsets_.data()); }
  const RRset& rrset(uint32_t index) const { return rrsets_[index]; }
  // Calls f(RRView) for each record of the set, in zone-file order, while it
  // returns true; returns false if f stopped early.
  template <typename F>
  bool for_each_rr(const RRset& set, F&& f) const {
    std::size_t at = set.data;
    for (uint16_t i = 0; i < set.count; ++i) {
      const RRView rr = rr_at(at);
      if (!f(rr)) return false;
      at += rr_header_size + rr.rdata.size();
    }
    return true;
  }
  RRView first_rr(const RRset& set) const { return rr_at(set.data); }
  // The record at `at` in the RDATA arena (an RRset's data, then each
  // record's rr_header_size + RDATA further): a transfer resumes there.
  RRView rr_at(std::size_t at) const;

  const Zone& zone(uint16_t z) const { return zones_[z]; }
  // The zone's DNSSEC records, if it is signed (its apex holds RRSIGs); else nullptr.
  const DnssecZone* dnssec(uint16_t z) const {
    return z < dnssec_.size() && dnssec_[z].secure ? &dnssec_[z] : nullptr;
  }
  bool any_signed() const { return !dnssec_.empty(); }
  std::size_t zone_count() const { return zones_.size(); }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t record_count() const { return record_count_; }
  CatalogMemory memory() const;

 private:
  friend class CatalogBuilder;

  std::vector<Node> nodes_;
  std::vector<RRset> rrsets_;
  std::string names_;
  std::string rdata_;
  std::vector<uint32_t> index_;  // open addressing, power-of-two size, no_node = empty
  std::vector<Zone> zones_;
  std::vector<DnssecZone> dnssec_;  // per zone; empty when no zone is signed
  std::size_t record_count_ = 0;
};

}  // namespace keel::dns
