// NSEC (RFC 4035 §3.1.3) and NSEC3 (RFC 5155 §7.2) proofs, by binary search
// over the owners index_dnssec sorted at load.
#include "answer/denial.hpp"

#include <algorithm>
#include <cstring>

#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"

namespace keel::dns {
namespace {

// A wire name lowercased into a buffer (hash input, RFC 5155 §5). With the
// wildcard prefix it still fits: an encloser is at least one label (two
// octets) shorter than a name asked, so "*." and it are at most 255 octets;
// the two spare octets keep even a longer one inside the buffer.
struct LowerName {
  char bytes[max_name_length + 2];
  std::size_t size = 0;
  explicit LowerName(std::string_view name, std::string_view prefix = {})
      : size(prefix.size() + name.size()) {
    if (!prefix.empty()) std::memcpy(bytes, prefix.data(), prefix.size());
    for (std::size_t i = 0; i < name.size(); ++i)
      bytes[prefix.size() + i] = static_cast<char>(ascii_lower(octet(name, i)));
  }
  std::string_view view() const { return {bytes, size}; }
};

constexpr std::string_view wildcard_label("\1*", 2);

}  // namespace

void Proofs::add(uint32_t node, const RRset* set) {
  if (set == nullptr || count == max) return;
  for (int i = 0; i < count; ++i)
    if (sets[i] == set) return;
  nodes[count] = node;
  sets[count++] = set;
}

uint32_t Denial::nsec_covering(std::string_view name) const {
  const auto& owners = zone_.nsec;
  if (owners.empty()) return no_node;
  auto it = std::upper_bound(
      owners.begin(), owners.end(), name,
      [&](std::string_view n, uint32_t o) { return canonical_compare(n, catalog_.name(o)) < 0; });
  return it == owners.begin() ? owners.back() : *(it - 1);
}

void Denial::add_nsec(uint32_t node, Proofs& out) const {
  if (node != no_node) out.add(node, catalog_.find_rrset(node, rr_type::nsec));
}

uint32_t Denial::nsec3_matching(std::string_view name) const {
  const Nsec3Hash h = nsec3_hash(zone_, LowerName(name).view());
  const auto& owners = zone_.hashed;
  auto it = std::lower_bound(owners.begin(), owners.end(), h,
                             [](const Nsec3Owner& o, const Nsec3Hash& v) { return o.hash < v; });
  return it != owners.end() && it->hash == h ? it->node : no_node;
}

uint32_t Denial::nsec3_covering(std::string_view name) const {
  const Nsec3Hash h = nsec3_hash(zone_, LowerName(name).view());
  const auto& owners = zone_.hashed;
  if (owners.empty()) return no_node;
  // The last owner before the hash; the last of all covers what is before the first.
  auto it = std::lower_bound(owners.begin(), owners.end(), h,
                             [](const Nsec3Owner& o, const Nsec3Hash& v) { return o.hash < v; });
  return it == owners.begin() ? owners.back().node : (it - 1)->node;
}

void Denial::add_nsec3(uint32_t node, Proofs& out) const {
  if (node != no_node) out.add(node, catalog_.find_rrset(node, rr_type::nsec3));
}

void Denial::closest_encloser_proof(std::string_view name, std::string_view encloser,
                                    Proofs& out) const {
  // NSD's order (nothing below, then the encloser): it decides what a truncated answer keeps.
  const int extra = label_count(name) - label_count(encloser);
  if (extra > 0) add_nsec3(nsec3_covering(strip_labels(name, extra - 1)), out);
  add_nsec3(nsec3_matching(encloser), out);
}

void Denial::closest_provable_encloser_proof(std::string_view name, Proofs& out) const {
  for (std::string_view up = name; up.size() > 1; up = strip_labels(up, 1)) {
    if (uint32_t encloser = nsec3_matching(up); encloser != no_node) {
      // Here NSD puts the encloser first (nsec3_add_ds_proof).
      add_nsec3(encloser, out);
      closest_encloser_proof(name, up, out);
      return;
    }
  }
}

void Denial::nxdomain(std::string_view name, uint32_t encloser, Proofs& out) const {
  const LowerName wild(catalog_.name(encloser), wildcard_label);
  if (zone_.nsec3) {  // RFC 5155 §7.2.2
    closest_encloser_proof(name, LowerName(catalog_.name(encloser)).view(), out);
    add_nsec3(nsec3_covering(wild.view()), out);
    return;
  }
  add_nsec(nsec_covering(name), out);  // RFC 4035 §3.1.3.2: no such name, no wildcard
  add_nsec(nsec_covering(wild.view()), out);
}

void Denial::nodata(std::string_view name, uint32_t node, Proofs& out) const {
  if (zone_.nsec3) {  // RFC 5155 §7.2.3; §7.2.4 for a DS at an opt-out delegation
    // A name asked that is a wildcard's own gets the wildcard NODATA proof (as NSD).
    const std::string_view owner = catalog_.name(node);
    if (is_wildcard(owner) && catalog_.node(node).parent != no_node)
      add_nsec3(nsec3_matching(catalog_.name(catalog_.node(node).parent)), out);
    if (uint32_t n = nsec3_matching(name); n != no_node)
      add_nsec3(n, out);
    else
      closest_provable_encloser_proof(name, out);
    return;
  }
  // RFC 4035 §3.1.3.1: the name's NSEC; an empty non-terminal has none and
  // the NSEC before it shows that it exists without types.
  if (catalog_.find_rrset(node, rr_type::nsec))
    add_nsec(node, out);
  else
    add_nsec(nsec_covering(name), out);
}

void Denial::wildcard(std::string_view name, uint32_t encloser, Proofs& out) const {
  if (zone_.nsec3) {  // RFC 5155 §7.2.6: the next closer name is covered
    const LowerName ce(catalog_.name(encloser));
    const int extra = label_count(name) - label_count(ce.view());
    if (extra > 0) add_nsec3(nsec3_covering(strip_labels(name, extra - 1)), out);
    return;
  }
  add_nsec(nsec_covering(name), out);  // RFC 4035 §3.1.3.3
}

void Denial::wildcard_nodata(std::string_view name, uint32_t encloser, uint32_t wildcard,
                             Proofs& out) const {
  if (zone_.nsec3) {  // RFC 5155 §7.2.5: closest encloser proof and the wildcard's NSEC3
    const LowerName ce(catalog_.name(encloser));
    closest_encloser_proof(name, ce.view(), out);
    add_nsec3(nsec3_matching(LowerName(catalog_.name(wildcard)).view()), out);
    return;
  }
  add_nsec(nsec_covering(name), out);  // RFC 4035 §3.1.3.4
  add_nsec(wildcard, out);
}

void Denial::insecure_referral(uint32_t cut, Proofs& out) const {
  if (zone_.nsec3) {  // RFC 5155 §7.2.7
    const LowerName name(catalog_.name(cut));
    if (uint32_t n = nsec3_matching(name.view()); n != no_node)
      add_nsec3(n, out);
    else
      closest_provable_encloser_proof(name.view(), out);
    return;
  }
  add_nsec(cut, out);  // RFC 4035 §3.1.4: the NSEC at the cut shows NS without DS
}

}  // namespace keel::dns
