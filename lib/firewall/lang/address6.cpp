// IPv6 address text and sets of addresses (address6.hpp).
#include "lang/address6.hpp"

#include <algorithm>
#include <charconv>

namespace keel::firewall {
namespace {
constexpr int kWords16 = 8;          // RFC 4291 section 2.2: eight 16-bit pieces
constexpr size_t kMaxHexDigits = 4;  // per piece
constexpr int kIp4Pieces = 2;        // an embedded IPv4 address fills the last two pieces
constexpr uint32_t kMaxOctet = 255;

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::optional<uint32_t> parse_ip4_tail(std::string_view text) {
  uint32_t address = 0;
  int parts = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t dot = std::min(text.find('.', pos), text.size());
    uint32_t octet = 0;
    auto [end, error] = std::from_chars(text.data() + pos, text.data() + dot, octet);
    if (error != std::errc() || end != text.data() + dot || octet > kMaxOctet || ++parts > 4)
      return std::nullopt;
    address = address << 8 | octet;
    pos = dot + 1;
  }
  return parts == 4 ? std::optional<uint32_t>(address) : std::nullopt;
}

// Pieces of one side of "::" (or of the whole address): "a:b:c" or "a:b:1.2.3.4".
bool parse_pieces(std::string_view text, bool may_end_in_ip4, std::vector<uint16_t>& out,
                  std::string& error) {
  if (text.empty()) return true;
  size_t pos = 0;
  for (;;) {
    size_t colon = std::min(text.find(':', pos), text.size());
    std::string_view piece = text.substr(pos, colon - pos);
    if (colon == text.size() && may_end_in_ip4 && piece.find('.') != std::string_view::npos) {
      auto ip4 = parse_ip4_tail(piece);
      if (!ip4) {
        error = "the embedded IPv4 address '" + std::string(piece) + "' is not four numbers 0-255";
        return false;
      }
      out.push_back(static_cast<uint16_t>(*ip4 >> 16));
      out.push_back(static_cast<uint16_t>(*ip4));
      return true;
    }
    if (piece.empty()) {
      error = "empty group (only one '::' may stand for zero groups)";
      return false;
    }
    if (piece.size() > kMaxHexDigits || !std::all_of(piece.begin(), piece.end(), is_hex)) {
      error = "group '" + std::string(piece) + "' is not 1-4 hex digits";
      return false;
    }
    uint16_t value = 0;
    std::from_chars(piece.data(), piece.data() + piece.size(), value, 16);
    out.push_back(value);
    if (colon == text.size()) return true;
    pos = colon + 1;
  }
}
}  // namespace

std::optional<Address6> parse_address6(std::string_view text, std::string& error) {
  std::vector<uint16_t> head, tail;
  size_t gap = text.find("::");
  if (gap != std::string_view::npos && text.find("::", gap + 1) != std::string_view::npos) {
    error = "'::' may appear only once";
    return std::nullopt;
  }
  if (gap == std::string_view::npos) {
    if (!parse_pieces(text, true, head, error)) return std::nullopt;
    if (head.size() != kWords16) {
      error = "expected eight groups of hex digits, or '::' for the zero groups";
      return std::nullopt;
    }
  } else {
    if (!parse_pieces(text.substr(0, gap), false, head, error) ||
        !parse_pieces(text.substr(gap + 2), true, tail, error))
      return std::nullopt;
    if (head.size() + tail.size() >= kWords16) {
      error = "'::' must stand for at least one zero group: too many groups";
      return std::nullopt;
    }
  }
  static_assert(kIp4Pieces == 2);
  Address6 a = 0;
  for (uint16_t piece : head) a = a << 16 | piece;
  for (size_t i = head.size() + tail.size(); i < kWords16; ++i) a <<= 16;
  for (uint16_t piece : tail) a = a << 16 | piece;
  return a;
}

std::string address6_text(Address6 address) {
  uint16_t piece[kWords16];
  for (int i = 0; i < kWords16; ++i)
    piece[i] = static_cast<uint16_t>(address >> (16 * (kWords16 - 1 - i)));
  // RFC 5952 section 4.2: the longest run of zero pieces (the first of equal runs), if >= 2.
  int best = -1, best_len = 1;
  for (int i = 0; i < kWords16;) {
    if (piece[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < kWords16 && piece[j] == 0) ++j;
    if (j - i > best_len) best = i, best_len = j - i;
    i = j;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < kWords16; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    bool leading = true;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int digit = piece[i] >> shift & 0xF;
      if (digit == 0 && leading && shift != 0) continue;
      leading = false;
      out += kHex[digit];
    }
  }
  return out;
}

void normalize6(RangeSet6& set) {
  std::sort(set.begin(), set.end(), [](const Range6& a, const Range6& b) { return a.lo < b.lo; });
  RangeSet6 out;
  for (const Range6& r : set) {
    if (!out.empty() && (out.back().hi == kMaxAddress6 || r.lo <= out.back().hi + 1)) {
      out.back().hi = std::max(out.back().hi, r.hi);
    } else {
      out.push_back(r);
    }
  }
  set.swap(out);
}

RangeSet6 complement6(const RangeSet6& set) {
  RangeSet6 out;
  Address6 next = 0;
  bool done = false;
  for (const Range6& r : set) {
    if (r.lo > next) out.push_back({next, r.lo - 1});
    if (r.hi == kMaxAddress6) {
      done = true;
      break;
    }
    next = r.hi + 1;
  }
  if (!done) out.push_back({next, kMaxAddress6});
  return out;
}

bool contains6(const RangeSet6& set, Address6 a) {
  for (const Range6& r : set)
    if (r.lo <= a && a <= r.hi) return true;
  return false;
}

namespace {
constexpr int kWords = 4;
constexpr uint32_t kWordMax = 0xFFFFFFFFu;

// Covers [lo, hi] (as words), whose words before `k` are equal and already in `cube`: the whole
// rest at once when lo's tail is all zeros and hi's all ones, else lo's and hi's own tails
// below this word and the values strictly between them in it (base 2^32 digits).
void cover(int k, const uint32_t (&lo)[kWords], const uint32_t (&hi)[kWords], WordCube cube,
           std::vector<WordCube>& out) {
  if (k == kWords) {
    out.push_back(cube);
    return;
  }
  bool lo_rest_min = true, hi_rest_max = true;
  for (int j = k + 1; j < kWords; ++j) {
    lo_rest_min &= lo[j] == 0;
    hi_rest_max &= hi[j] == kWordMax;
  }
  if (lo_rest_min && hi_rest_max) {
    if (lo[k] != 0 || hi[k] != kWordMax) cube.word[cube.count++] = {lo[k], hi[k]};
    out.push_back(cube);
    return;
  }
  if (lo[k] == hi[k]) {
    cube.word[cube.count++] = {lo[k], lo[k]};
    cover(k + 1, lo, hi, cube, out);
    return;
  }
  uint32_t first = lo[k], last = hi[k];
  if (!lo_rest_min) {  // lo's word, from lo's tail to the end of the word
    uint32_t top[kWords];
    for (int j = 0; j < kWords; ++j) top[j] = j <= k ? lo[j] : kWordMax;
    WordCube below = cube;
    below.word[below.count++] = {lo[k], lo[k]};
    cover(k + 1, lo, top, below, out);
    ++first;
  }
  std::vector<WordCube> upper;
  if (!hi_rest_max) {  // hi's word, from its start to hi's tail
    uint32_t bottom[kWords];
    for (int j = 0; j < kWords; ++j) bottom[j] = j <= k ? hi[j] : 0;
    WordCube above = cube;
    above.word[above.count++] = {hi[k], hi[k]};
    cover(k + 1, bottom, hi, above, upper);
    --last;
  }
  // lo[k] < hi[k], so neither step wrapped.
  if (first <= last) {
    WordCube middle = cube;
    if (first != 0 || last != kWordMax) middle.word[middle.count++] = {first, last};
    out.push_back(middle);
  }
  out.insert(out.end(), upper.begin(), upper.end());
}
}  // namespace

std::vector<WordCube> word_cubes_of(const RangeSet6& set) {
  std::vector<WordCube> out;
  for (const Range6& r : set) {
    uint32_t lo[kWords], hi[kWords];
    for (int w = 0; w < kWords; ++w) lo[w] = address6_word(r.lo, w), hi[w] = address6_word(r.hi, w);
    cover(0, lo, hi, WordCube{}, out);
  }
  return out;
}

}  // namespace keel::firewall
