#pragma once
// IPv6 addresses in the rule language: the RFC 4291 section 2.2 text forms in, the RFC 5952
// canonical form out, and sets of addresses as 128-bit ranges that lower to cubes over the four
// 32-bit address words (docs/decisions/0138).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/firewall/tables.hpp"

namespace keel::firewall {

__extension__ typedef unsigned __int128 Address6;

inline constexpr int kAddress6Bits = 128;

struct Range6 {
  Address6 lo = 0;
  Address6 hi = 0;
};
using RangeSet6 = std::vector<Range6>;  // sorted, disjoint, non-adjacent after normalize6

// Parses "2001:db8::1", "::ffff:192.0.2.1" and the like; nullopt with `error` set (what was
// wrong, for "malformed IPv6 address '...': <error>") when the text is no address.
std::optional<Address6> parse_address6(std::string_view text, std::string& error);
// RFC 5952: lower case, no leading zeros, the longest run of two or more zero words as "::".
std::string address6_text(Address6 address);

constexpr uint32_t address6_word(Address6 a, int word) {
  return static_cast<uint32_t>(a >> (32 * (3 - word)));
}
constexpr Address6 address6_from_words(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
  return Address6{w0} << 96 | Address6{w1} << 64 | Address6{w2} << 32 | w3;
}
// Mask of the host part of a `length`-bit prefix.
constexpr Address6 host_mask6(int length) {
  return length >= kAddress6Bits ? Address6{0} : ~Address6{0} >> length;
}
inline constexpr Address6 kMaxAddress6 = ~Address6{0};

// A packet's IPv6 source or destination as one number.
constexpr Address6 packet_saddr6(const Packet& p) {
  return address6_from_words(p.saddr, p.saddr6[0], p.saddr6[1], p.saddr6[2]);
}
constexpr Address6 packet_daddr6(const Packet& p) {
  return address6_from_words(p.daddr, p.daddr6[0], p.daddr6[1], p.daddr6[2]);
}

void normalize6(RangeSet6& set);
RangeSet6 complement6(const RangeSet6& set);  // of a normalized set
bool contains6(const RangeSet6& set, Address6 a);
// A box of addresses over the four 32-bit words: words 0..count-1 tested (each a single value
// but the last, which may be an interval), the others any value. A prefix is one (a /48: word 0
// exact, word 1 in [x0000, xffff]); any range is at most seven.
struct WordCube {
  int count = 0;
  Interval word[4]{};
};
// Cubes that cover exactly the set (disjoint, in address order).
std::vector<WordCube> word_cubes_of(const RangeSet6& set);

}  // namespace keel::firewall
