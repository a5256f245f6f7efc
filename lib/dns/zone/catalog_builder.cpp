// Catalog::build: the zone checks, then nodes, RRsets, arenas and the index.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "answer/dnssec_support.hpp"
#include "keel/dns/catalog.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/rdata.hpp"
#include "wire/bytes.hpp"
#include "zone/canonical.hpp"

namespace keel::dns {

class CatalogBuilder {
 public:
  CatalogBuilder(const std::vector<ZoneData>& zones, std::vector<Diagnostic>& errors)
      : input_(zones), errors_(errors), catalog_(new Catalog) {}

  std::unique_ptr<Catalog> build();

 private:
  // Records of one owner, grouped into RRsets in order of first appearance.
  struct Owner {
    std::string name;                            // as first written
    std::vector<std::vector<std::size_t>> sets;  // record indexes per RRset
  };

  bool check_origins();
  void add_zone(uint16_t z);
  bool check_record(const ZoneData& zone, const ZoneRecord& r);
  bool check_owner(const ZoneData& zone, const Owner& owner);
  void check_below_dname(const ZoneData& zone, const std::vector<Owner>& owners);
  uint32_t node_for(uint16_t z, std::string_view name);
  void add_rrsets(uint32_t n, const ZoneData& zone, const Owner& owner);
  void set_flags(uint16_t z);
  void build_index();
  void index_node(uint32_t n);
  void error(const ZoneData& zone, const Location& where, std::string message) {
    errors_.push_back(diagnostic_at(zone, where, std::move(message)));
  }

  const std::vector<ZoneData>& input_;
  std::vector<Diagnostic>& errors_;
  std::unique_ptr<Catalog> catalog_;
  std::size_t errors_before_ = 0;
  // Per zone while building: lowercased name -> node.
  std::unordered_map<std::string, uint32_t> zone_nodes_;
};

namespace {

bool is_meta_type(uint16_t type) {
  // RFC 6895 §3.1: 0 and 128-255 are QTYPEs or meta types, never data (ANY, AXFR, ...);
  // OPT (41) is a pseudo-record (RFC 6891 §6.1.1).
  return type == 0 || type == rr_type::opt || (type >= 128 && type <= 255);
}

std::string owner_text(std::string_view name) { return name_to_text(name); }

}  // namespace

std::unique_ptr<Catalog> Catalog::build(const std::vector<ZoneData>& zones,
                                        std::vector<Diagnostic>& errors) {
  return CatalogBuilder(zones, errors).build();
}

std::unique_ptr<Catalog> CatalogBuilder::build() {
  errors_before_ = errors_.size();
  if (input_.size() > 0xffff) {
    errors_.push_back({"", 0, 0, "more than 65535 zones"});
    return nullptr;
  }
  if (!check_origins()) return nullptr;
  for (uint16_t z = 0; z < input_.size(); ++z) add_zone(z);
  if (errors_.size() != errors_before_) return nullptr;
  build_index();
  if (const DnssecSupport* dnssec = dnssec_support()) catalog_->dnssec_ = dnssec->index(*catalog_);
  return std::move(catalog_);
}

bool CatalogBuilder::check_origins() {
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t z = 0; z < input_.size(); ++z) {
    const ZoneData& zone = input_[z];
    if (!is_valid_name(zone.origin)) {
      errors_.push_back(
          {"", 0, 0, "zone " + std::to_string(z) + ": the origin is not a valid name"});
      continue;
    }
    if (!seen.emplace(lowercase_name(zone.origin), z).second) {
      errors_.push_back({"", 0, 0, "zone " + owner_text(zone.origin) + " is given twice"});
    }
  }
  return errors_.size() == errors_before_;
}

bool CatalogBuilder::check_record(const ZoneData& zone, const ZoneRecord& r) {
  if (!is_valid_name(r.owner)) {
    error(zone, r.where, "the owner is not a valid name");
    return false;
  }
  if (!is_subdomain(r.owner, zone.origin)) {
    error(zone, r.where, owner_text(r.owner) + " is outside the zone " + owner_text(zone.origin));
    return false;
  }
  if (is_meta_type(r.type)) {
    error(zone, r.where, "type " + type_name(r.type) + " cannot be zone data");
    return false;
  }
  if (!rdata_valid(r.type, r.rdata)) {
    error(zone, r.where, "the RDATA is not valid for type " + type_name(r.type));
    return false;
  }
  if (r.type == rr_type::soa && !names_equal(r.owner, zone.origin)) {
    error(zone, r.where, "the SOA record must be at the zone apex " + owner_text(zone.origin));
    return false;
  }
  return true;
}

bool CatalogBuilder::check_owner(const ZoneData& zone, const Owner& owner) {
  const auto& recs = zone.records;
  bool ok = true;
  const std::vector<std::size_t>* cname = nullptr;
  for (const auto& set : owner.sets) {
    const ZoneRecord& first = recs[set.front()];
    if (first.type == rr_type::cname) cname = &set;
    const bool single =
        first.type == rr_type::cname || first.type == rr_type::dname || first.type == rr_type::soa;
    if (single && set.size() > 1) {
      // RFC 2181 §10.1 (CNAME), RFC 6672 §2.4 (DNAME), RFC 1035 §5.2 (one SOA per zone).
      error(zone, recs[set[1]].where,
            owner_text(owner.name) + " has more than one " + type_name(first.type) + " record");
      ok = false;
    }
  }
  if (cname != nullptr && owner.sets.size() > 1) {
    // RFC 1034 §3.6.2: a CNAME owner has no other data, but its DNSSEC
    // records (RFC 4035 §2.5: RRSIG and NSEC).
    for (const auto& set : owner.sets) {
      const uint16_t type = recs[set.front()].type;
      if (&set == cname || type == rr_type::rrsig || type == rr_type::nsec) continue;
      const std::size_t later = std::max(set.front(), cname->front());
      error(zone, recs[later].where,
            owner_text(owner.name) + " has a CNAME record and other data (" +
                type_name(recs[set.front()].type) + ")");
      ok = false;
    }
  }
  return ok;
}

void CatalogBuilder::check_below_dname(const ZoneData& zone, const std::vector<Owner>& owners) {
  // RFC 6672 §2.4: no data below a DNAME (NSD refuses such a zone too).
  std::unordered_map<std::string, const Owner*> dnames;
  for (const Owner& owner : owners) {
    for (const auto& set : owner.sets) {
      if (zone.records[set.front()].type == rr_type::dname)
        dnames.emplace(lowercase_name(owner.name), &owner);
    }
  }
  if (dnames.empty()) return;
  for (const Owner& owner : owners) {
    const std::string lowered = lowercase_name(owner.name);
    for (std::string_view up = strip_labels(lowered, 1); up.size() > 1; up = strip_labels(up, 1)) {
      if (auto it = dnames.find(std::string(up)); it != dnames.end()) {
        error(zone, zone.records[owner.sets.front().front()].where,
              owner_text(owner.name) + " is below the DNAME at " + owner_text(it->second->name));
        break;
      }
    }
  }
}

uint32_t CatalogBuilder::node_for(uint16_t z, std::string_view name) {
  std::string key = lowercase_name(name);
  if (auto it = zone_nodes_.find(key); it != zone_nodes_.end()) return it->second;
  // Parents (empty non-terminals too) come first, so a parent's index is below its children's.
  uint32_t parent = no_node;
  if (!names_equal(name, input_[z].origin)) parent = node_for(z, strip_labels(name, 1));
  Catalog& c = *catalog_;
  const uint32_t n = uint32_t(c.nodes_.size());
  Node node;
  node.name = uint32_t(c.names_.size());
  c.names_ += static_cast<char>(name.size());
  c.names_ += name;
  node.hash = name_hash(key);
  node.zone = z;
  node.parent = parent;
  c.nodes_.push_back(node);
  zone_nodes_.emplace(std::move(key), n);
  return n;
}

void CatalogBuilder::add_rrsets(uint32_t n, const ZoneData& zone, const Owner& owner) {
  Catalog& c = *catalog_;
  c.nodes_[n].first_rrset = uint32_t(c.rrsets_.size());
  c.nodes_[n].rrset_count = uint16_t(owner.sets.size());
  for (const auto& set : owner.sets) {
    RRset rrset;
    rrset.type = zone.records[set.front()].type;
    rrset.count = uint16_t(set.size());
    rrset.data = uint32_t(c.rdata_.size());
    for (std::size_t i : set) {
      const ZoneRecord& r = zone.records[i];
      uint8_t fixed[6];
      store32(fixed, r.ttl);
      store16(fixed + 4, uint16_t(r.rdata.size()));
      c.rdata_.append(reinterpret_cast<const char*>(fixed), sizeof fixed);
      c.rdata_ += r.rdata;
    }
    c.record_count_ += set.size();
    c.rrsets_.push_back(rrset);
  }
}

void CatalogBuilder::add_zone(uint16_t z) {
  const ZoneData& zone = input_[z];
  // Group records by owner and type, dropping exact duplicates (RFC 2181 §5: an RRset is a set).
  std::vector<Owner> owners;
  std::unordered_map<std::string, std::size_t> owner_index;
  // Hashes of (owner, type, canonical RDATA): a hash seen before sends the record to
  // a comparison with its RRset's. Keys of whole records cost a signed zone's
  // RRSIGs twice over at load (a 100,000-record zone did not load in 64 MiB).
  std::unordered_set<uint64_t> seen_rr;
  std::size_t soa_count = 0;
  for (std::size_t i = 0; i < zone.records.size(); ++i) {
    const ZoneRecord& r = zone.records[i];
    if (!check_record(zone, r)) continue;
    if (r.type == rr_type::soa && ++soa_count > 1) {
      error(zone, r.where, "the zone " + owner_text(zone.origin) + " has more than one SOA record");
      continue;
    }
    std::string key = lowercase_name(r.owner);
    const std::string canonical = canonical_rdata(r.type, r.rdata);
    const std::hash<std::string_view> hash;
    const uint64_t rr_hash = (uint64_t(hash(key)) * 0x9e3779b97f4a7c15u) ^ hash(canonical) ^ r.type;
    const bool seen = !seen_rr.insert(rr_hash).second;
    auto [it, fresh] = owner_index.emplace(std::move(key), owners.size());
    if (fresh) owners.push_back({r.owner, {}});
    Owner& owner = owners[it->second];
    auto set = std::find_if(owner.sets.begin(), owner.sets.end(),
                            [&](const auto& s) { return zone.records[s.front()].type == r.type; });
    if (seen && set != owner.sets.end() &&
        std::any_of(set->begin(), set->end(), [&](std::size_t j) {
          return canonical_rdata(r.type, zone.records[j].rdata) == canonical;
        })) {
      continue;
    }
    if (set == owner.sets.end()) {
      if (owner.sets.size() == 0xffff) {
        error(zone, r.where, "too many types at " + owner_text(r.owner));
        continue;
      }
      owner.sets.push_back({i});
    } else if (set->size() == 0xffff) {
      error(zone, r.where, "too many records in one RRset");
    } else {
      set->push_back(i);
    }
  }
  if (soa_count == 0) {
    errors_.push_back(diagnostic_at(zone, Location{0, zone.files.empty() ? 0u : 1u, 1},
                                    "the zone " + owner_text(zone.origin) + " has no SOA record"));
  }
  // The grouping's indexes are done with: free them before the arenas grow.
  std::unordered_set<uint64_t>().swap(seen_rr);
  std::unordered_map<std::string, std::size_t>().swap(owner_index);
  for (const Owner& owner : owners) check_owner(zone, owner);
  check_below_dname(zone, owners);
  // After any error (in this zone or an earlier one) only the checks go on, so
  // every zone's errors are reported and zones_[z] stays zone z.
  if (errors_.size() != errors_before_) return;

  Catalog& c = *catalog_;
  zone_nodes_.clear();
  Zone info;
  info.origin = zone.origin;
  info.apex = node_for(z, zone.origin);
  c.nodes_[info.apex].flags |= node_flag::apex;
  // The arenas at their final sizes at once (empty non-terminals aside): doubling
  // them costs a big zone (signed: RRSIGs, NSEC3s) twice over at load.
  std::size_t rdata_size = c.rdata_.size(), names_size = c.names_.size(), sets = c.rrsets_.size();
  for (const Owner& owner : owners) {
    names_size += 1 + owner.name.size();
    sets += owner.sets.size();
    for (const auto& set : owner.sets)
      for (std::size_t i : set) rdata_size += rr_header_size + zone.records[i].rdata.size();
  }
  c.rdata_.reserve(rdata_size);
  c.names_.reserve(names_size);
  c.nodes_.reserve(c.nodes_.size() + owners.size() + 1);
  c.rrsets_.reserve(sets);
  for (const Owner& owner : owners) add_rrsets(node_for(z, owner.name), zone, owner);
  const RRset* soa = c.find_rrset(info.apex, rr_type::soa);
  info.soa = c.rrset_index(soa);
  const RRView soa_rr = c.first_rr(*soa);
  constexpr std::size_t soa_minimum_from_end = 4;  // RFC 1035 §3.3.13: MINIMUM is the last field
  const uint32_t minimum = load32(soa_rr.rdata, soa_rr.rdata.size() - soa_minimum_from_end);
  info.negative_ttl = std::min(soa_rr.ttl, minimum);  // RFC 2308 §5
  c.zones_.push_back(std::move(info));
  set_flags(z);
  std::unordered_map<std::string, uint32_t>().swap(zone_nodes_);
}

void CatalogBuilder::set_flags(uint16_t z) {
  Catalog& c = *catalog_;
  // Parents were created before their children, so one pass in index order sees
  // every parent's flags first.
  for (uint32_t n = c.zones_[z].apex; n < c.nodes_.size(); ++n) {
    Node& node = c.nodes_[n];
    for (const RRset& set : c.rrsets(n)) {
      if (set.type == rr_type::ns && !(node.flags & node_flag::apex))
        node.flags |= node_flag::delegation;
      if (set.type == rr_type::dname) node.flags |= node_flag::has_dname;
    }
    if (node.parent == no_node) continue;
    const Node& parent = c.nodes_[node.parent];
    if (parent.flags & (node_flag::delegation | node_flag::below_delegation)) {
      node.flags |= node_flag::below_delegation;
    }
    if (parent.flags & (node_flag::has_dname | node_flag::below_dname))
      node.flags |= node_flag::below_dname;
    if (is_wildcard(c.name(n))) c.nodes_[node.parent].flags |= node_flag::wildcard_child;
  }
}

void CatalogBuilder::index_node(uint32_t n) {
  Catalog& c = *catalog_;
  const std::string key = lowercase_name(c.name(n));
  const uint32_t existing = c.find(key, c.nodes_[n].hash);
  if (existing == no_node) {
    const std::size_t mask = c.index_.size() - 1;
    std::size_t i = c.nodes_[n].hash & mask;
    while (c.index_[i] != no_node) i = (i + 1) & mask;
    c.index_[i] = n;
  } else {
    uint32_t last = existing;
    while (c.nodes_[last].next_zone != no_node) last = c.nodes_[last].next_zone;
    c.nodes_[last].next_zone = n;
  }
}

void CatalogBuilder::build_index() {
  Catalog& c = *catalog_;
  std::size_t size = 16;
  while (size < 2 * c.nodes_.size()) size *= 2;  // load factor at most 1/2
  c.index_.assign(size, no_node);
  // Deeper zones first, so the first node stored for a name is the deepest zone's. A
  // zone's nodes are contiguous (add_zone made them together), from its apex on.
  for (int depth = int(max_labels); depth >= 0; --depth) {
    for (uint16_t z = 0; z < c.zones_.size(); ++z) {
      if (label_count(c.zones_[z].origin) != depth) continue;
      const uint32_t end =
          z + 1u < c.zones_.size() ? c.zones_[z + 1].apex : uint32_t(c.nodes_.size());
      for (uint32_t n = c.zones_[z].apex; n < end; ++n) index_node(n);
    }
  }
  for (uint32_t n = 0; n < c.nodes_.size(); ++n) {
    const std::string key = lowercase_name(c.name(n));
    if (c.zone_for(key) == c.nodes_[n].zone) c.nodes_[n].flags |= node_flag::deepest_zone;
  }
  c.nodes_.shrink_to_fit();
  c.rrsets_.shrink_to_fit();
  c.names_.shrink_to_fit();
  c.rdata_.shrink_to_fit();
}

}  // namespace keel::dns
