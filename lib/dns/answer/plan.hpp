// What a response will hold, before it is written: the RRsets per section in
// the order they were added, the rcode and the AA bit. The resolver fills a
// plan; render.cpp writes it, truncating the way NSD does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel::dns {

// NSD writes additional A records for all names before any AAAA (answer.c).
enum class Section : uint8_t { answer, authority, additional_a, additional_aaaa };
inline constexpr int section_count = 4;

inline constexpr uint32_t no_signatures = 0xffffffffu;

enum class ItemKind : uint8_t {
  rrset,         // catalog RRset `rrset` with owner `owner`
  negative_soa,  // the zone's SOA with the RFC 2308 negative TTL
  dname_cname,   // RFC 6672 §3.3: CNAME `owner` -> `target`, TTL of the DNAME
};

struct PlanItem {
  Section section = Section::answer;
  ItemKind kind = ItemKind::rrset;
  // RFC 9471 §3: glue of an in-domain name server in a referral; if it does
  // not fit, the response gets TC.
  bool required = false;
  uint32_t rrset = 0;
  uint32_t ttl = 0;
  std::string_view owner;
  std::string_view target;
  // RFC 4035 §3.1.1: the RRSIG RRset of the records' owner, whose signatures
  // covering this RRset's type follow it (DO set, signed zone).
  uint32_t signatures = no_signatures;
};

// RFC 8914 Extended DNS Error codes NSD sends.
namespace ede {
inline constexpr int none = -1;
inline constexpr int other = 0;
inline constexpr int prohibited = 18;
inline constexpr int not_authoritative = 20;
inline constexpr int not_supported = 21;
}  // namespace ede

struct Plan {
  // NSD's answer holds a bounded number of RRsets too; chains stop when it is
  // full. Over TCP a referral to 60 in-domain servers needs 121 (NS, then A
  // and AAAA of each): 48 cut such glue short there (test_tcp.py against NSD).
  static constexpr std::size_t max_items = 128;
  static constexpr std::size_t scratch_size = 8 * 256;

  uint16_t rcode = 0;
  bool authoritative = false;
  bool refused = false;  // no served zone encloses the question
  int ede = ede::none;   // an Extended DNS Error option to add when EDNS is on
  std::string_view ede_text;
  PlanItem items[max_items];
  std::size_t count = 0;
  char scratch[scratch_size];  // names made while answering (DNAME results)
  std::size_t scratch_used = 0;

  // Stores a name in the scratch area; empty view if it is full.
  std::string_view keep(std::string_view name);
};

}  // namespace keel::dns
