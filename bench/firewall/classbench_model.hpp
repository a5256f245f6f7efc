#pragma once
// Realistic 5-tuple filter sets after the structure ClassBench describes (Taylor and Turner,
// "ClassBench: A Packet Classification Benchmark", IEEE/ACM ToN 15(3), 2007): three families of
// real filter sets (access-control lists, firewalls, IP chains), each described by
//  - a protocol distribution, and per protocol a distribution of port pair classes: each port
//    is WC (0-65535), HI (1024-65535), LO (0-1023), AR (an arbitrary range) or EM (one port);
//  - prefix length pair distributions (source, destination), conditioned on the port classes;
//  - address tries: per level the probability that a node has two children and, if it has,
//    the skew between them (1 - light/heavy), and a bound on prefix nesting (how many prefixes
//    of one address contain each other; acl1's seed says 4);
//  - lists of the exact ports and arbitrary ranges that occur;
//  - address scaling: larger sets spread over more of the address space.
// The profiles are in classbench_profiles.cpp; bench/firewall/README.md compares generated sets
// with the published statistics.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace keel::firewall::bench {

enum class PortClass : uint8_t { wc, hi, lo, ar, em };

struct PortPairShare {
  PortClass source;
  PortClass destination;
  double weight;
};

// Protocol 0 is the wildcard (no protocol condition, no ports).
struct ProtocolShare {
  uint8_t protocol;
  double weight;
  std::vector<PortPairShare> port_pairs;  // empty: ports wildcard (ICMP, GRE, any)
};

// A share of rules whose source length is in [source_lo, source_hi] and destination length in
// [destination_lo, destination_hi] (uniform within the box).
struct PrefixPairShare {
  uint8_t source_lo, source_hi, destination_lo, destination_hi;
  double weight;
};

// Trie levels from `level` on (until the next entry) share these branching statistics.
struct TrieLevels {
  uint8_t level;
  double two_children;  // probability that a node at this level has two children
  double skew;          // for two children: 1 - (prefixes on the lighter side / heavier side)
};

struct TrieShape {
  std::vector<TrieLevels> levels;
  int max_nesting;
};

struct PortShare {
  uint16_t lo, hi;
  double weight;
};

struct FamilyProfile {
  std::string name;
  std::vector<ProtocolShare> protocols;
  std::vector<PrefixPairShare> pairs_wildcard_ports;  // both ports WC (or no ports)
  std::vector<PrefixPairShare> pairs_with_ports;      // any port specified
  TrieShape source_trie, destination_trie;
  std::vector<PortShare> exact_ports;       // EM destination ports (source EM draws from it too)
  std::vector<PortShare> arbitrary_ranges;  // AR
  double random_exact_port = 0;             // share of EM ports drawn uniformly instead
};

// The named families: "acl", "fw", "ipc" (nullptr for another name).
const FamilyProfile* family_profile(const std::string& name);

// One generated rule (addresses as prefix value + length, ports and protocol as ranges).
struct FilterRule {
  uint32_t source = 0, destination = 0;
  uint8_t source_length = 0, destination_length = 0;
  uint16_t sport_lo = 0, sport_hi = 0xFFFF, dport_lo = 0, dport_hi = 0xFFFF;
  uint8_t protocol = 0;  // 0: any
  bool operator==(const FilterRule&) const = default;
};

// `count` distinct rules of `family`; the same (family, count, seed) gives the same set.
std::vector<FilterRule> generate_filters(const FamilyProfile& family, size_t count, uint32_t seed);

// The rules in Keel's language (one chain on the forward hook, policy accept).
std::string filters_text(const std::vector<FilterRule>& rules, uint32_t seed);
// Reads back the rules of what filters_text wrote, or of any rule file in that style (for the
// packets: `firewall_bench lookup acl|fw|ipc FILE` draws them from FILE's rules): prefixes or
// bare addresses, `protocol N`, `tcp`/`udp`, single ports or ranges; lines not ending in
// accept or drop are skipped, and what a line does not say is wildcard.
std::vector<FilterRule> parse_filters(const std::string& text);

}  // namespace keel::firewall::bench
