// Writes a plan's RRsets after the question, truncating as NSD does
// (packet.c): an answer or authority RRset that does not fit is left out
// whole and sets TC, which ends the response; an additional RRset keeps the
// records that fit and the next RRsets are still tried (RFC 2181 §9 allows
// leaving additional data out without TC), except the glue of in-domain name
// servers of a referral, which sets TC when it does not fit (RFC 9471 §3;
// NSD 4.6 predates that RFC).
#pragma once
#include <cstdint>

#include "answer/plan.hpp"
#include "keel/dns/catalog.hpp"
#include "keel/dns/writer.hpp"

namespace keel::dns {

struct SectionCounts {
  uint16_t answer = 0;
  uint16_t authority = 0;
  uint16_t additional = 0;
  bool truncated = false;
};

SectionCounts render_sections(const Catalog& catalog, const Plan& plan, MessageWriter& writer);

}  // namespace keel::dns
