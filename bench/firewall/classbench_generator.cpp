// Generates filter sets from a FamilyProfile the way ClassBench describes its Filter Set
// Generator: first each rule's protocol, port pair class and prefix length pair, then all source
// prefixes together by walking the source trie model from the root (a node with two children
// sends a skewed share of the prefixes below it each way; a prefix stops at its length), then
// the destinations the same way. Identical rules are dropped and more are drawn.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <random>
#include <sstream>
#include <unordered_set>

#include "classbench_model.hpp"
#include "keel/firewall/compiler.hpp"

namespace keel::firewall::bench {
namespace {
constexpr int kAddressBits = 32;
constexpr uint16_t kHiLo = 1024;  // HI is 1024-65535, LO 0-1023 (ClassBench's db_generator)
constexpr int kMaxRounds = 8;
// Address scaling: per doubling of the set beyond this size, trie nodes above the host bits
// get this much more chance of a second child (up to kMaxScaling), so a 1M-rule set spreads
// over more sites and subnets than a 1k one instead of repeating the same few addresses.
constexpr double kScalingBase = 1000;
constexpr double kScalingPerDoubling = 0.075;
constexpr double kMaxScaling = 0.5;
constexpr double kDropShare = 1.0 / 3;
constexpr double kOrderNoise = 6;  // bits of specificity by which neighbouring rules may swap

template <typename T>
const T& pick_weighted(const std::vector<T>& items, std::mt19937_64& rng) {
  double total = 0;
  for (const T& item : items) total += item.weight;
  double at = std::uniform_real_distribution<double>(0, total)(rng);
  for (const T& item : items) {
    if (at < item.weight) return item;
    at -= item.weight;
  }
  return items.back();
}

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

// Assigns prefix values to `lengths` (one per rule) by the trie model. A node's shape (one or
// two children, which side is heavier) is a function of the node and `salt`, so later rounds
// of the same set grow the same trie.
class TrieWalk {
 public:
  TrieWalk(const TrieShape& shape, double scaling, uint64_t salt, std::mt19937_64& rng)
      : shape_(shape), scaling_(scaling), salt_(salt), rng_(rng), max_nesting_(shape.max_nesting) {}

  std::vector<uint32_t> assign(const std::vector<uint8_t>& lengths) {
    lengths_ = &lengths;
    values_.assign(lengths.size(), 0);
    std::vector<uint32_t> all(lengths.size());
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    // Prefixes no subtree could take within the nesting bound are placed without it (the
    // bound is a target: a concentrated trie cannot always meet it).
    std::vector<uint32_t> left = walk(0, 0, all, 0);
    unplaced_ += left.size();
    max_nesting_ = kAddressBits + 1;
    walk(0, 0, left, 0);
    max_nesting_ = shape_.max_nesting;
    return values_;
  }

 private:
  const TrieLevels& level(int depth) const {
    const TrieLevels* at = &shape_.levels.front();
    for (const TrieLevels& l : shape_.levels)
      if (l.level <= depth) at = &l;
    return *at;
  }

  // Places the prefixes of `here` in the subtree of node (depth, value) below `nesting` prefixes
  // that end above it; returns those that would nest deeper than the bound there (the caller
  // tries the sibling subtree).
  std::vector<uint32_t> walk(int depth, uint32_t value, std::vector<uint32_t>& here, int nesting) {
    if (nesting >= max_nesting_) return std::move(here);
    std::vector<uint32_t> below;
    bool ends_here = false;
    for (uint32_t i : here) {
      if ((*lengths_)[i] == depth) {
        values_[i] = value;
        ends_here = true;
      } else {
        below.push_back(i);
      }
    }
    std::vector<uint32_t>().swap(here);
    const uint64_t key = (uint64_t{value} << 6) | static_cast<uint64_t>(depth);
    if (ends_here) placed_.insert(key);
    if (below.empty()) return {};
    nesting += depth > 0 && (ends_here || placed_.count(key));  // a wildcard nests nothing
    const TrieLevels& shape = level(depth);
    const double two = shape.two_children + (1 - shape.two_children) * (depth < 24 ? scaling_ : 0);
    const uint64_t node = mix(salt_ ^ mix(key));
    const bool two_children =
        static_cast<double>(node >> 11) * 0x1.0p-53 < two && below.size() >= 2;
    const uint32_t bit = 1u << (kAddressBits - 1 - depth);
    const uint32_t heavy = value | ((node & 1) ? bit : 0), light = heavy ^ bit;
    std::vector<uint32_t> to_light;
    if (two_children) {
      std::shuffle(below.begin(), below.end(), rng_);
      const double share = (1 - shape.skew) / (2 - shape.skew);
      size_t n = std::clamp<size_t>(
          static_cast<size_t>(std::lround(share * static_cast<double>(below.size()))), 1,
          below.size() - 1);
      to_light.assign(below.end() - static_cast<std::ptrdiff_t>(n), below.end());
      below.resize(below.size() - n);
    }
    std::vector<uint32_t> left_light = walk(depth + 1, light, to_light, nesting);
    std::vector<uint32_t> left_heavy = walk(depth + 1, heavy, below, nesting);
    // One retry on the other side, then up.
    std::vector<uint32_t> left = walk(depth + 1, light, left_heavy, nesting);
    std::vector<uint32_t> more = walk(depth + 1, heavy, left_light, nesting);
    left.insert(left.end(), more.begin(), more.end());
    return left;
  }

  const TrieShape& shape_;
  double scaling_;
  uint64_t salt_;
  std::mt19937_64& rng_;
  int max_nesting_;
  const std::vector<uint8_t>* lengths_ = nullptr;
  std::vector<uint32_t> values_;
  std::unordered_set<uint64_t> placed_;  // nodes where a prefix ends (over all rounds)
 public:
  size_t unplaced_ = 0;
};

void pick_port(PortClass c, const FamilyProfile& family, std::mt19937_64& rng, uint16_t& lo,
               uint16_t& hi) {
  switch (c) {
    case PortClass::wc:
      lo = 0, hi = 0xFFFF;
      return;
    case PortClass::hi:
      lo = kHiLo, hi = 0xFFFF;
      return;
    case PortClass::lo:
      lo = 0, hi = kHiLo - 1;
      return;
    case PortClass::ar: {
      const PortShare& r = pick_weighted(family.arbitrary_ranges, rng);
      lo = r.lo, hi = r.hi;
      return;
    }
    case PortClass::em:
      if (std::uniform_real_distribution<double>(0, 1)(rng) < family.random_exact_port) {
        lo = hi = static_cast<uint16_t>(rng());
      } else {
        lo = hi = pick_weighted(family.exact_ports, rng).lo;
      }
      return;
  }
}

struct RuleHash {
  size_t operator()(const FilterRule& r) const {
    return mix(uint64_t{r.source} << 32 ^ r.destination ^ uint64_t{r.source_length} << 8 ^
               r.destination_length) ^
           mix(uint64_t{r.sport_lo} << 48 | uint64_t{r.sport_hi} << 32 |
               uint64_t{r.dport_lo} << 16 | r.dport_hi) ^
           r.protocol;
  }
};

// Bits a rule fixes: prefix lengths, about log2(65536 / width) per port range, 8 for a protocol.
double specificity(const FilterRule& r) {
  const auto port_bits = [](uint16_t lo, uint16_t hi) {
    return 16 - std::log2(static_cast<double>(hi - lo) + 1);
  };
  return r.source_length + r.destination_length + port_bits(r.sport_lo, r.sport_hi) +
         port_bits(r.dport_lo, r.dport_hi) + (r.protocol ? 8 : 0);
}

uint8_t uniform_length(uint8_t lo, uint8_t hi, std::mt19937_64& rng) {
  return static_cast<uint8_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
}
}  // namespace

std::vector<FilterRule> generate_filters(const FamilyProfile& family, size_t count, uint32_t seed) {
  std::mt19937_64 rng(seed);
  const double doublings = std::log2(std::max(1.0, static_cast<double>(count) / kScalingBase));
  const double scaling = std::min(kMaxScaling, kScalingPerDoubling * doublings);
  const uint64_t salt = mix(seed + 0x9E3779B97F4A7C15ull);
  std::vector<FilterRule> out;
  out.reserve(count);
  std::unordered_set<FilterRule, RuleHash> seen;
  TrieWalk source_walk(family.source_trie, scaling, salt, rng);
  TrieWalk destination_walk(family.destination_trie, scaling, mix(salt + 1), rng);
  for (int round = 0; round < kMaxRounds && out.size() < count; ++round) {
    const size_t batch = (count - out.size()) + (count - out.size()) / 8 + 16;
    std::vector<FilterRule> rules(batch);
    std::vector<uint8_t> source_lengths(batch), destination_lengths(batch);
    for (size_t i = 0; i < batch; ++i) {
      FilterRule& r = rules[i];
      const ProtocolShare& protocol = pick_weighted(family.protocols, rng);
      r.protocol = protocol.protocol;
      bool wildcard_ports = true;
      if (!protocol.port_pairs.empty()) {
        const PortPairShare& pair = pick_weighted(protocol.port_pairs, rng);
        pick_port(pair.source, family, rng, r.sport_lo, r.sport_hi);
        pick_port(pair.destination, family, rng, r.dport_lo, r.dport_hi);
        wildcard_ports = pair.source == PortClass::wc && pair.destination == PortClass::wc;
      }
      const PrefixPairShare& lengths = pick_weighted(
          wildcard_ports ? family.pairs_wildcard_ports : family.pairs_with_ports, rng);
      source_lengths[i] = uniform_length(lengths.source_lo, lengths.source_hi, rng);
      destination_lengths[i] = uniform_length(lengths.destination_lo, lengths.destination_hi, rng);
    }
    const std::vector<uint32_t> sources = source_walk.assign(source_lengths);
    const std::vector<uint32_t> destinations = destination_walk.assign(destination_lengths);
    for (size_t i = 0; i < batch && out.size() < count; ++i) {
      FilterRule& r = rules[i];
      r.source = sources[i], r.source_length = source_lengths[i];
      r.destination = destinations[i], r.destination_length = destination_lengths[i];
      if (seen.insert(r).second) out.push_back(r);
    }
  }
  // ClassBench, too, emits fewer filters than asked when the model runs out of distinct ones;
  // this only happens for tiny address models, not for the profiles here.
  // Real filter sets put specific rules before general ones (a general rule first would make the
  // specific ones dead): order by specificity, with noise so neighbouring classes interleave.
  std::vector<std::pair<double, uint32_t>> order(out.size());
  std::normal_distribution<double> noise(0, kOrderNoise);
  for (uint32_t i = 0; i < out.size(); ++i) order[i] = {-(specificity(out[i]) + noise(rng)), i};
  std::sort(order.begin(), order.end());
  std::vector<FilterRule> sorted;
  sorted.reserve(out.size());
  for (const auto& [key, i] : order) sorted.push_back(out[i]);
  out.swap(sorted);
  return out;
}

std::string filters_text(const std::vector<FilterRule>& rules, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out = "chain bench hook forward policy accept {\n";
  out.reserve(rules.size() * 80);
  const auto range = [](uint16_t lo, uint16_t hi) {
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  };
  for (const FilterRule& r : rules) {
    std::string line = " ";
    if (r.source_length)
      line += " ip saddr " + ipv4_text(r.source) + "/" + std::to_string(r.source_length);
    if (r.destination_length) {
      line += " ip daddr " + ipv4_text(r.destination) + "/" + std::to_string(r.destination_length);
    }
    const bool ports =
        r.sport_lo != 0 || r.sport_hi != 0xFFFF || r.dport_lo != 0 || r.dport_hi != 0xFFFF;
    const char* name = r.protocol == kProtoTcp ? "tcp" : r.protocol == kProtoUdp ? "udp" : nullptr;
    if (name && !ports) line += std::string(" ") + name;
    if (!name && r.protocol) line += " protocol " + std::to_string(r.protocol);
    if (name && (r.sport_lo != 0 || r.sport_hi != 0xFFFF)) {
      line += std::string(" ") + name + " sport " + range(r.sport_lo, r.sport_hi);
    }
    if (name && (r.dport_lo != 0 || r.dport_hi != 0xFFFF)) {
      line += std::string(" ") + name + " dport " + range(r.dport_lo, r.dport_hi);
    }
    out += line + (std::uniform_real_distribution<double>(0, 1)(rng) < kDropShare ? " drop\n"
                                                                                  : " accept\n");
  }
  return out + "}\n";
}

std::vector<FilterRule> parse_filters(const std::string& text) {
  std::vector<FilterRule> out;
  std::istringstream lines(text);
  std::string line;
  // A.B.C.D/L, or a bare address (a /32); anything else leaves the field wildcard.
  const auto prefix = [](const std::string& word, uint32_t& value, uint8_t& length) {
    unsigned a, b, c, d, l = 32;
    const int n = std::sscanf(word.c_str(), "%u.%u.%u.%u/%u", &a, &b, &c, &d, &l);
    if (n < 4 || l > 32) return;
    value = (a << 24 | b << 16 | c << 8 | d) & (l == 0 ? 0 : ~0u << (32 - l));
    length = static_cast<uint8_t>(l);
  };
  const auto range = [](const std::string& word, uint16_t& lo, uint16_t& hi) {
    unsigned a = 0, b = 0;
    const int n = std::sscanf(word.c_str(), "%u-%u", &a, &b);
    lo = static_cast<uint16_t>(a);
    hi = static_cast<uint16_t>(n == 2 ? b : a);
  };
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> w((std::istream_iterator<std::string>(words)),
                               std::istream_iterator<std::string>());
    if (w.empty() || (w.back() != "accept" && w.back() != "drop")) continue;
    FilterRule r;
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[i] == "saddr") prefix(w[i + 1], r.source, r.source_length);
      if (w[i] == "daddr") prefix(w[i + 1], r.destination, r.destination_length);
      if (w[i] == "protocol") r.protocol = static_cast<uint8_t>(std::stoul(w[i + 1]));
      if (w[i] == "tcp") r.protocol = kProtoTcp;
      if (w[i] == "udp") r.protocol = kProtoUdp;
      if (w[i] == "sport") range(w[i + 1], r.sport_lo, r.sport_hi);
      if (w[i] == "dport") range(w[i + 1], r.dport_lo, r.dport_hi);
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace keel::firewall::bench
