#include "answer/render.hpp"

#include "keel/dns/constants.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

bool put_rr(MessageWriter& w, std::string_view owner, uint16_t type, uint32_t ttl,
            std::string_view rdata) {
  const std::size_t start = w.position();
  if (w.put_name(owner, true) && w.put16(type) && w.put16(rr_class::in) && w.put32(ttl) &&
      w.put_rdata(type, rdata)) {
    return true;
  }
  w.rewind(start);
  return false;
}

// RFC 4035 §3.1.1: after an RRset, the RRSIGs at its owner covering its type
// (the first field of RRSIG RDATA), with their own TTLs, but an SOA's, which
// take the SOA's (NSD: the negative TTL in a negative answer).
bool put_signatures(const Catalog& catalog, const PlanItem& item, uint16_t type, uint32_t soa_ttl,
                    MessageWriter& w, uint16_t& written) {
  return catalog.for_each_rr(catalog.rrset(item.signatures), [&](const RRView& rr) {
    if (rr.rdata.size() < 2 || load16(rr.rdata, 0) != type) return true;
    const uint32_t ttl = type == rr_type::soa ? soa_ttl : rr.ttl;
    if (!put_rr(w, item.owner, rr_type::rrsig, ttl, rr.rdata)) return false;
    ++written;
    return true;
  });
}

// Writes one item; returns how many records fit (all of them unless `partial`
// allows fewer, else 0 with nothing written) and whether all did.
uint16_t put_item(const Catalog& catalog, const PlanItem& item, MessageWriter& w, bool partial,
                  bool& all) {
  const std::size_t start = w.position();
  uint16_t written = 0;
  all = true;
  if (item.kind == ItemKind::dname_cname) {
    all = put_rr(w, item.owner, rr_type::cname, item.ttl, item.target);
    return all ? 1 : 0;
  }
  const RRset& set = catalog.rrset(item.rrset);
  uint32_t first_ttl = 0;
  all = catalog.for_each_rr(set, [&](const RRView& rr) {
    const uint32_t ttl = item.kind == ItemKind::negative_soa ? item.ttl : rr.ttl;
    if (!put_rr(w, item.owner, set.type, ttl, rr.rdata)) return false;
    if (written++ == 0) first_ttl = ttl;
    return true;
  });
  bool signed_whole = true;
  if (all && item.signatures != no_signatures)
    all = signed_whole = put_signatures(catalog, item, set.type, first_ttl, w, written);
  // An additional RRset whose signatures do not fit is left out whole, as NSD
  // does (RFC 4035 §3.1.1 lets a server drop either).
  if (!all && (!partial || !signed_whole)) {
    w.rewind(start);
    return 0;
  }
  return written;
}

}  // namespace

SectionCounts render_sections(const Catalog& catalog, const Plan& plan, MessageWriter& w) {
  SectionCounts counts;
  for (int s = 0; s < section_count && !counts.truncated; ++s) {
    const Section section = static_cast<Section>(s);
    const bool additional = section == Section::additional_a || section == Section::additional_aaaa;
    for (std::size_t i = 0; i < plan.count && !counts.truncated; ++i) {
      const PlanItem& item = plan.items[i];
      if (item.section != section) continue;
      bool all = true;
      const uint16_t n = put_item(catalog, item, w, additional, all);
      if (!all && (!additional || item.required)) counts.truncated = true;
      if (section == Section::answer)
        counts.answer += n;
      else if (section == Section::authority)
        counts.authority += n;
      else
        counts.additional += n;
    }
  }
  return counts;
}

}  // namespace keel::dns
