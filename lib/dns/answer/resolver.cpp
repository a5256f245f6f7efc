// The answer algorithm. Comments name the NSD step each part mirrors.
#include "answer/resolver.hpp"

#include <cstring>

#include "answer/dnssec_support.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"

namespace keel::dns {

std::string_view Plan::keep(std::string_view name) {
  if (scratch_size - scratch_used < name.size()) return {};
  char* at = scratch + scratch_used;
  std::memcpy(at, name.data(), name.size());
  scratch_used += name.size();
  return {at, name.size()};
}

namespace {

// A name lowercased for the index.
struct Lowered {
  char bytes[max_name_length];
  std::size_t size = 0;
  uint32_t hash = 0;

  explicit Lowered(std::string_view name) : size(name.size()) {
    for (std::size_t i = 0; i < size; ++i)
      bytes[i] = static_cast<char>(ascii_lower(octet(name, i)));
    hash = name_hash(view());
  }
  Lowered(std::string_view prefix, std::string_view name) : size(prefix.size() + name.size()) {
    std::memcpy(bytes, prefix.data(), prefix.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
      bytes[prefix.size() + i] = static_cast<char>(ascii_lower(octet(name, i)));
    }
    hash = name_hash(view());
  }
  std::string_view view() const { return {bytes, size}; }
};

class Resolver {
 public:
  Resolver(const Catalog& c, const Request& r, Plan& p) : catalog_(c), request_(r), plan_(p) {}

  void run() {
    for (std::string_view name = request_.name; !name.empty();) name = step(name);
  }

 private:
  struct Match {
    uint32_t node = no_node;  // the closest encloser
    bool exact = false;
  };

  const Node& node(uint32_t n) const { return catalog_.node(n); }
  bool class_in() const { return request_.rclass != rr_class::any; }

  Match closest_encloser(const Lowered& name, uint16_t zone) const {
    if (uint32_t n = catalog_.find_in_zone(name.view(), name.hash, zone); n != no_node)
      return {n, true};
    // The zone's apex encloses the name, so the walk ends there at the latest.
    for (std::string_view suffix = strip_labels(name.view(), 1); suffix.size() > 1;
         suffix = strip_labels(suffix, 1)) {
      if (uint32_t n = catalog_.find_in_zone(suffix, name_hash(suffix), zone); n != no_node)
        return {n, false};
    }
    return {catalog_.zone(zone).apex, false};
  }

  uint32_t wildcard_of(uint32_t encloser) const {
    const std::string_view name = catalog_.name(encloser);
    if (name.size() + 2 > max_name_length) return no_node;
    const Lowered wild(std::string_view("\1*", 2), name);
    return catalog_.find_in_zone(wild.view(), wild.hash, zone_);
  }

  // answer_add_rrset: an RRset with the same owner is added once; met again in
  // a lower section it moves there (and counts as added). False: not added.
  bool add(Section section, ItemKind kind, uint32_t rrset, std::string_view owner, uint32_t ttl = 0,
           std::string_view target = {}, bool required = false,
           uint32_t signatures = no_signatures) {
    for (std::size_t i = 0; i < plan_.count; ++i) {
      PlanItem& item = plan_.items[i];
      if (item.kind != kind || item.rrset != rrset || !names_equal(item.owner, owner)) continue;
      if (kind == ItemKind::dname_cname && !names_equal(item.target, target)) continue;
      item.required |= required;
      if (section < item.section) {
        item.section = section;
        return true;
      }
      return false;
    }
    if (plan_.count == Plan::max_items) return false;
    plan_.items[plan_.count++] = {section, kind, required, rrset, ttl, owner, target, signatures};
    return true;
  }

  // add_rrset: with minimal responses, additional data only for referrals and NS queries.
  bool add_rrset(Section section, const RRset& set, std::string_view owner, uint32_t node) {
    const bool added = add(section, ItemKind::rrset, catalog_.rrset_index(&set), owner, 0, {},
                           false, signatures(node));
    if (set.type == rr_type::ns &&
        (section == Section::authority || request_.type == rr_type::ns)) {
      add_ns_additional(set, section == Section::authority ? owner : std::string_view{});
    }
    return added;
  }

  // add_additional_rrsets: A and AAAA of each NS target from the current zone
  // (glue included), from a wildcard when the target does not exist. All A
  // RRsets go before all AAAA; for IPv6 clients the other way round. In a
  // referral to `delegation`, the glue of name servers below it is required.
  void add_ns_additional(const RRset& ns, std::string_view delegation) {
    const uint16_t first_type = request_.client_ipv6 ? rr_type::aaaa : rr_type::a;
    const uint16_t second_type = request_.client_ipv6 ? rr_type::a : rr_type::aaaa;
    const std::string_view origin = catalog_.zone(zone_).origin;
    catalog_.for_each_rr(ns, [&](const RRView& rr) {
      const std::string_view target = rr.rdata;
      if (!is_subdomain(target, origin)) return true;
      const Match m = closest_encloser(Lowered(target), zone_);
      uint32_t source = m.exact ? m.node : no_node;
      if (!m.exact && (node(m.node).flags & node_flag::wildcard_child))
        source = wildcard_of(m.node);
      if (source == no_node) return true;
      const bool required = !delegation.empty() && is_subdomain(target, delegation);
      if (const RRset* set = catalog_.find_rrset(source, first_type)) {
        add(Section::additional_a, ItemKind::rrset, catalog_.rrset_index(set), target, 0, {},
            required, signatures(source));
      }
      if (const RRset* set = catalog_.find_rrset(source, second_type)) {
        add(Section::additional_aaaa, ItemKind::rrset, catalog_.rrset_index(set), target, 0, {},
            required, signatures(source));
      }
      return true;
    });
  }

  // answer_soa (RFC 2308 §3): the SOA in the authority section, negative TTL.
  void add_soa() {
    if (!class_in()) return;
    const Zone& z = catalog_.zone(zone_);
    add(Section::authority, ItemKind::negative_soa, z.soa, catalog_.name(z.apex), z.negative_ttl,
        {}, false, signatures(z.apex));
  }

  // RFC 8482 §4.1 as NSD picks: the first of A, AAAA, SOA, MX, PTR; else the
  // last other RRset; DNSSEC RRsets only when nothing else is there.
  const RRset* any_rrset(uint32_t n) const {
    const RRset *normal = nullptr, *unwanted = nullptr;
    for (const RRset& set : catalog_.rrsets(n)) {
      switch (set.type) {
        case rr_type::a:
        case rr_type::aaaa:
        case rr_type::soa:
        case rr_type::mx:
        case rr_type::ptr:
          return &set;
        case rr_type::dnskey:
        case rr_type::rrsig:
        case rr_type::nsec:
          unwanted = &set;
          break;
        default:
          normal = &set;
      }
    }
    return normal ? normal : unwanted;
  }

  // answer_domain: data at an existing name, or at the wildcard (`wildcard`
  // is then its closest encloser) standing in for it.
  std::string_view answer_domain(uint32_t n, std::string_view owner, uint32_t wildcard = no_node) {
    // NSD answers NSEC3 queries NODATA: the hashed names are not names of the zone.
    const RRset* set = request_.type == rr_type::any     ? any_rrset(n)
                       : request_.type == rr_type::nsec3 ? nullptr
                                                         : catalog_.find_rrset(n, request_.type);
    if (set != nullptr) {
      add_rrset(Section::answer, *set, owner, n);
      return {};
    }
    if (request_.type != rr_type::any && request_.type != rr_type::nsec3 &&
        (set = catalog_.find_rrset(n, rr_type::cname)) != nullptr) {
      // A CNAME seen twice is a loop: stop there.
      if (!add_rrset(Section::answer, *set, owner, n)) return {};
      ++chained_;
      return catalog_.first_rr(*set).rdata;
    }
    add_soa();  // answer_nodata
    if (wildcard != no_node)
      prove(Proof::wildcard_nodata, owner, wildcard, n);
    else
      prove(Proof::nodata, owner, n);
    return {};
  }

  // RFC 4035 §3.1.1: the RRSIGs of `node`, when the answer is to carry them.
  uint32_t signatures(uint32_t node) const {
    if (signed_ == nullptr) return no_signatures;
    const RRset* sigs = catalog_.find_rrset(node, rr_type::rrsig);
    return sigs ? catalog_.rrset_index(sigs) : no_signatures;
  }

  // In a signed zone with DO: the NSEC or NSEC3 RRsets that prove `kind`, in the authority
  // section, from the DNSSEC code (present whenever a zone is indexed as signed: decision 0141).
  void prove(Proof kind, std::string_view name, uint32_t node, uint32_t other = no_node) {
    if (signed_ != nullptr) add_proofs(kind, name, node, other);
  }
  // Out of line: the five sites share one copy.
  [[gnu::noinline]] void add_proofs(Proof kind, std::string_view name, uint32_t node,
                                    uint32_t other) {
    Proofs proofs;
    dnssec_support()->prove(catalog_, *signed_, kind, name, node, other, proofs);
    for (int i = 0; i < proofs.count; ++i) {
      add(Section::authority, ItemKind::rrset, catalog_.rrset_index(proofs.sets[i]),
          catalog_.name(proofs.nodes[i]), 0, {}, false, signatures(proofs.nodes[i]));
    }
  }

  // RFC 5155 §7.2.8 via NSD: a name holding only NSEC3 records is no name of the zone.
  bool only_nsec3(uint32_t n) const {
    bool nsec3 = false;
    for (const RRset& set : catalog_.rrsets(n)) {
      if (set.type != rr_type::nsec3 && set.type != rr_type::rrsig) return false;
      nsec3 |= set.type == rr_type::nsec3;
    }
    return nsec3;
  }

  // RFC 6672 §3.2: DNAME substitution and the synthesized CNAME (TTL of the DNAME).
  std::string_view answer_dname(uint32_t n, std::string_view name) {
    const RRset& dname = *catalog_.find_rrset(n, rr_type::dname);
    const std::string_view source = catalog_.name(n);
    const RRView rr = catalog_.first_rr(dname);
    if (!add_rrset(Section::answer, dname, source, n) && is_subdomain(rr.rdata, source)) return {};
    const std::string_view prefix = name.substr(0, name.size() - source.size());
    if (prefix.size() + rr.rdata.size() > max_name_length) {
      plan_.rcode = rcode::yxdomain;
      plan_.ede = ede::other;
      plan_.ede_text = "DNAME expansion became too large";
      return {};
    }
    char joined[max_name_length];
    std::memcpy(joined, prefix.data(), prefix.size());
    std::memcpy(joined + prefix.size(), rr.rdata.data(), rr.rdata.size());
    const std::string_view result = plan_.keep({joined, prefix.size() + rr.rdata.size()});
    if (result.empty()) return {};
    ++chained_;
    if (!add(Section::answer, ItemKind::dname_cname, 0, name, rr.ttl, result)) return {};
    return request_.type == rr_type::cname ? std::string_view{} : result;
  }

  // answer_lookup_zone + answer_authoritative: one link of a chain. Returns
  // the next name (a CNAME or DNAME target) or an empty view when done.
  std::string_view step(std::string_view name) {
    const Lowered lowered(name);
    const int zone = catalog_.zone_for(lowered.view());
    if (zone < 0) {
      if (chained_ == 0) {
        plan_.refused = true;
        plan_.rcode = rcode::refused;
        plan_.ede = ede::not_authoritative;  // RFC 8914 §4.21
      }
      return {};
    }
    zone_ = uint16_t(zone);
    Match m = closest_encloser(lowered, zone_);
    // RFC 4035 §3.1.4.1: DS at a zone apex belongs to the parent zone, if served.
    if (m.exact && request_.type == rr_type::ds && (node(m.node).flags & node_flag::apex)) {
      const int parent = name.size() > 1 ? catalog_.zone_for(strip_labels(lowered.view(), 1)) : -1;
      if (parent < 0) {
        plan_.authoritative = class_in();
        signed_ = request_.dnssec_ok ? catalog_.dnssec(zone_) : nullptr;
        add_soa();
        prove(Proof::nodata, lowered.view(), m.node);
        return {};
      }
      zone_ = uint16_t(parent);
      m = closest_encloser(lowered, zone_);
    }
    signed_ = request_.dnssec_ok ? catalog_.dnssec(zone_) : nullptr;
    if (m.exact && node(m.node).rrset_count <= 2 && only_nsec3(m.node))
      m = {node(m.node).parent, false};
    // find_dname_above: a DNAME occludes the names below it.
    if (node(m.node).flags & node_flag::below_dname) {
      uint32_t up = node(m.node).parent;
      while (!(node(up).flags & node_flag::has_dname)) up = node(up).parent;
      m = {up, false};
    }
    // domain_find_ns_rrsets: the lowest zone cut at or above the closest encloser.
    uint32_t cut = m.node;
    while (cut != no_node && !(node(cut).flags & (node_flag::delegation | node_flag::apex)))
      cut = node(cut).parent;
    const bool is_cut = cut != no_node && (node(cut).flags & node_flag::delegation) &&
                        !(node(cut).flags & node_flag::below_dname);
    if (is_cut && !(m.exact && request_.type == rr_type::ds && m.node == cut)) {
      plan_.authoritative = chained_ > 0;  // answer_delegation
      add_rrset(Section::authority, *catalog_.find_rrset(cut, rr_type::ns), catalog_.name(cut),
                cut);
      if (signed_ != nullptr) {  // RFC 4035 §3.1.4: the DS, or the proof there is none
        if (const RRset* ds = catalog_.find_rrset(cut, rr_type::ds))
          add_rrset(Section::authority, *ds, catalog_.name(cut), cut);
        else
          prove(Proof::insecure_referral, {}, cut);
      }
      return {};
    }
    plan_.authoritative = class_in();
    if (m.exact) return answer_domain(m.node, name);
    if (node(m.node).flags & node_flag::has_dname) return answer_dname(m.node, name);
    if (node(m.node).flags & node_flag::wildcard_child) {
      // RFC 4592 §3.3.1: the closest encloser's wildcard answers, owned by the name asked.
      if (uint32_t wild = wildcard_of(m.node); wild != no_node) {
        prove(Proof::wildcard, lowered.view(), m.node);
        return answer_domain(wild, name, m.node);
      }
    }
    plan_.rcode = rcode::nxdomain;  // answer_nxdomain; NSD adds the proofs before the SOA
    prove(Proof::nxdomain, lowered.view(), m.node);
    add_soa();
    return {};
  }

  const Catalog& catalog_;
  const Request& request_;
  Plan& plan_;
  uint16_t zone_ = 0;
  const DnssecZone* signed_ = nullptr;  // the zone, if signed and DO was set
  int chained_ = 0;                     // CNAMEs and DNAMEs followed (NSD's cname_count)
};

}  // namespace

void resolve(const Catalog& catalog, const Request& request, Plan& plan) {
  Resolver(catalog, request, plan).run();
}

}  // namespace keel::dns
