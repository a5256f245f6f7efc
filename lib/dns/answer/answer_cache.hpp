// Pre-rendered answers: for every (name, type) the zones hold, and A/AAAA at
// CNAMEs and zone cuts, the response sections after the question are
// rendered once at load time by the normal answer path. A query for that
// name (in any case: compression pointers into the question stay valid
// because the question has the same length and labels) gets the header and
// question from the query and the sections copied, if they fit its size
// limit; anything else takes the normal path.
//
// Each name also gets one answer for "any type it does not hold" (NODATA, or
// the referral at and below a zone cut), rendered once for a type that is not
// there: every such type gets the same sections. Not for ANY and DS, whose
// answers differ (RFC 8482, RFC 4035 §3.1.4.1), nor at a CNAME, whose chain
// depends on the type.
//
// An answer truncated at our own payload size (an RRset larger than it) is
// not kept: it leaves a marker that sends such queries to the normal path,
// which sets TC exactly as for an uncached answer (RFC 2181 §9).
//
// An answer too long for a query without EDNS (512 octets) gets a second
// rendering as the normal path answers such a query (glue left out, or TC
// set): referrals with many name servers are where that happens, and most
// resolvers' retries and many stub queries come without EDNS.
//
// A name below a zone cut that is not in the zone (www.child. at the parent,
// the bulk of a TLD's queries) gets the referral of its closest existing
// ancestor: the same sections, with every compression pointer moved by the
// extra labels of the question (all the sections' names point into the
// question's ancestor or into the sections, both of which move by that much).
// Only referrals whose names below the ancestor are all in the zone qualify:
// otherwise one of them could share a suffix with the longer question and
// compress differently (see shareable_referral).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace keel::dns {

class Server;

// Identical bodies are stored once: the NODATA answers of names of the same
// length are the same octets (the SOA's owner points into the question).
struct CachedAnswer {
  static constexpr uint16_t other_types = 0x8000;  // in flags: stands for every type the name lacks
  static constexpr uint16_t without_edns =
      0x4000;  // in flags: for a query without EDNS (512 octets)
  static constexpr uint16_t below_too =
      0x2000;  // in flags: a referral that also answers names below
  // In flags: no rendering is kept for this type (it is truncated at our
  // payload size, or carries an error option); the query takes the normal
  // path, which fits it to the client's size. Without this marker the lookup
  // would fall back to the "other types" answer and deny an RRset that exists.
  static constexpr uint16_t normal_path = 0x1000;
  static constexpr uint16_t response_flags = 0x060f;  // in flags: AA, TC and RCODE of the response

  uint16_t qtype = 0;
  uint16_t flags = 0;
  uint16_t ancount = 0;
  uint16_t nscount = 0;
  uint16_t arcount = 0;
  uint16_t length = 0;  // octets after the question
  uint32_t offset = 0;  // in the body arena
};

class AnswerCache {
 public:
  // Renders the answers through `server` (whose catalog must not change).
  void build(Server& server);
  // The answer for `qtype` at `node`, rendered for a query with EDNS or
  // (`without_edns`) one without; nullptr if there is none.
  const CachedAnswer* find(uint32_t node, uint16_t qtype, bool without_edns) const;
  // The referral for names below `node` that are not in the zone, or nullptr.
  const CachedAnswer* find_below(uint32_t node, bool without_edns) const;
  // Moves every compression pointer in `sections` (a copy of body(a)) by
  // `shift` octets; false if one would not fit in a pointer.
  static bool move_pointers(uint8_t* sections, const CachedAnswer& a, uint16_t shift);
  std::string_view body(const CachedAnswer& a) const {
    return std::string_view(bodies_).substr(a.offset, a.length);
  }
  std::size_t bytes() const;
  std::size_t size() const { return entries_.size() - markers_; }

 private:
  using Stored = std::unordered_map<std::string, uint32_t>;  // body -> offset, while building
  // Renders one answer of `node` (flavour: CachedAnswer's other_types and
  // without_edns flags) and keeps it; true if it is too long for a query
  // without EDNS.
  bool render(Server& server, uint32_t node, uint16_t type, uint16_t flavour,
              std::vector<uint8_t>& response, Stored& stored);

  std::vector<uint32_t> first_;  // per node: its first entry; first_[n + 1] ends it
  std::vector<CachedAnswer> entries_;
  std::string bodies_;
  std::size_t markers_ = 0;  // normal_path entries, which hold no answer
};

}  // namespace keel::dns
