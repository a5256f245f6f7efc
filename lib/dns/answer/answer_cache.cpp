// The pre-rendered answers at query time: finding an answer and moving its
// pointers (built at load time by answer_cache_build.cpp).
#include "answer/answer_cache.hpp"

#include "keel/dns/constants.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

// Moves the pointer ending the name at `pos`; returns the offset after the
// name, or 0 if the name runs past `end` or a pointer would not fit.
std::size_t move_name_pointer(uint8_t* p, std::size_t pos, std::size_t end, uint16_t shift) {
  constexpr uint16_t pointer_bits = 0xc000, max_pointer = 0x3fff;
  while (pos < end) {
    const uint8_t len = p[pos];
    if (len == 0) return pos + 1;
    if ((len & 0xc0) == 0xc0) {
      if (pos + 2 > end) return 0;
      const uint32_t target = (load16(p + pos) & max_pointer) + uint32_t(shift);
      if (target > max_pointer) return 0;
      store16(p + pos, uint16_t(pointer_bits | target));
      return pos + 2;
    }
    pos += 1 + len;
  }
  return 0;
}

}  // namespace

const CachedAnswer* AnswerCache::find(uint32_t node, uint16_t qtype, bool without_edns) const {
  const CachedAnswer* exact = nullptr;
  const CachedAnswer* other = nullptr;
  for (uint32_t i = first_[node]; i < first_[node + 1]; ++i) {
    const CachedAnswer& e = entries_[i];
    // An answer for queries without EDNS replaces the one with EDNS (which
    // is too long for them) when the query has none.
    const bool plain = (e.flags & CachedAnswer::without_edns) != 0;
    if (plain && !without_edns) continue;
    if (e.flags & CachedAnswer::other_types) {
      if (!other || plain) other = &e;
    } else if (e.qtype == qtype) {
      if (!exact || plain) exact = &e;
    }
  }
  const CachedAnswer* found = exact;
  if (!found && qtype != rr_type::any && qtype != rr_type::ds) found = other;
  return found && !(found->flags & CachedAnswer::normal_path) ? found : nullptr;
}

const CachedAnswer* AnswerCache::find_below(uint32_t node, bool without_edns) const {
  const CachedAnswer* found = nullptr;
  for (uint32_t i = first_[node]; i < first_[node + 1]; ++i) {
    const CachedAnswer& e = entries_[i];
    const bool plain = (e.flags & CachedAnswer::without_edns) != 0;
    if (!(e.flags & CachedAnswer::other_types) || (plain && !without_edns)) continue;
    if (!found || plain) found = &e;
  }
  // (A normal_path marker never has below_too.)
  return found && (found->flags & CachedAnswer::below_too) ? found : nullptr;
}

bool AnswerCache::move_pointers(uint8_t* sections, const CachedAnswer& a, uint16_t shift) {
  // The records as render_sections wrote them: owner, TYPE, CLASS, TTL,
  // RDLENGTH, RDATA; only NS RDATA holds a (compressed) name here.
  constexpr std::size_t fixed = 10;  // TYPE, CLASS, TTL, RDLENGTH
  const std::size_t records = std::size_t(a.ancount) + a.nscount + a.arcount;
  std::size_t pos = 0;
  for (std::size_t r = 0; r < records; ++r) {
    pos = move_name_pointer(sections, pos, a.length, shift);
    if (pos == 0 || pos + fixed > a.length) return false;
    const uint16_t type = load16(sections + pos);
    const std::size_t rdlength = load16(sections + pos + 8);
    pos += fixed;
    if (pos + rdlength > a.length) return false;
    if (type == rr_type::ns && move_name_pointer(sections, pos, pos + rdlength, shift) == 0)
      return false;
    pos += rdlength;
  }
  return pos == a.length;
}

std::size_t AnswerCache::bytes() const {
  return first_.capacity() * sizeof(uint32_t) + entries_.capacity() * sizeof(CachedAnswer) +
         bodies_.capacity();
}

}  // namespace keel::dns
