// `firewall_bench stats`: what a generated family set looks like, in the terms ClassBench uses to
// describe real filter sets (protocols, port pair classes, prefix length pairs, distinct
// prefixes, nesting), next to the shares the profile asks for.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "classbench_model.hpp"
#include "mixes.hpp"

namespace keel::firewall::bench {
namespace {
constexpr uint16_t kHiLo = 1024;
constexpr size_t kTopPairs = 12;
constexpr int kSiteBits = 16;

const char* class_name(uint16_t lo, uint16_t hi) {
  if (lo == 0 && hi == 0xFFFF) return "WC";
  if (lo == kHiLo && hi == 0xFFFF) return "HI";
  if (lo == 0 && hi == kHiLo - 1) return "LO";
  return lo == hi ? "EM" : "AR";
}

double percent(size_t part, size_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

// The longest chain of distinct prefixes containing each other (ClassBench's prefix nesting).
int max_nesting(const std::set<std::pair<uint8_t, uint32_t>>& prefixes) {
  int deepest = 0;
  for (const auto& [length, value] : prefixes) {
    int depth = 0;
    for (int l = 0; l <= length; ++l) {
      const uint32_t mask = l == 0 ? 0 : ~0u << (32 - l);
      depth += prefixes.count({static_cast<uint8_t>(l), value & mask}) != 0;
    }
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

template <typename Key>
void print_shares(const char* title, const std::map<Key, size_t>& counts, size_t total, size_t top,
                  const std::map<Key, double>& wanted, auto&& name) {
  std::vector<std::pair<size_t, Key>> sorted;
  for (const auto& [key, n] : counts) sorted.push_back({n, key});
  std::sort(sorted.rbegin(), sorted.rend());
  std::printf("%s\n", title);
  for (size_t i = 0; i < sorted.size() && i < top; ++i) {
    const auto it = wanted.find(sorted[i].second);
    std::printf("  %-12s %6.2f%%", name(sorted[i].second).c_str(), percent(sorted[i].first, total));
    if (it != wanted.end()) std::printf("   (profile %5.2f%%)", it->second);
    std::printf("\n");
  }
}
}  // namespace

int print_filter_stats(const std::string& mix, size_t count, uint32_t seed) {
  const FamilyProfile* family = family_profile(mix);
  if (!family) {
    std::fprintf(stderr, "stats: %s is not a filter family (acl, fw, ipc)\n", mix.c_str());
    return 2;
  }
  const std::vector<FilterRule> rules = generate_filters(*family, count, seed);
  std::map<int, size_t> protocols;
  std::map<std::string, size_t> port_pairs;
  std::map<std::pair<int, int>, size_t> length_pairs;
  std::set<std::pair<uint8_t, uint32_t>> sources, destinations;
  std::set<uint32_t> sites;
  size_t source_wild = 0, destination_wild = 0, both_short = 0;
  for (const FilterRule& r : rules) {
    ++protocols[r.protocol];
    if (r.protocol == kProtoTcp || r.protocol == kProtoUdp) {
      ++port_pairs[std::string(class_name(r.sport_lo, r.sport_hi)) + "/" +
                   class_name(r.dport_lo, r.dport_hi)];
    }
    ++length_pairs[{r.source_length, r.destination_length}];
    sources.insert({r.source_length, r.source});
    destinations.insert({r.destination_length, r.destination});
    for (auto [value, length] :
         {std::pair{r.source, r.source_length}, {r.destination, r.destination_length}})
      if (length >= kSiteBits) sites.insert(value >> (32 - kSiteBits));
    source_wild += r.source_length == 0;
    destination_wild += r.destination_length == 0;
    both_short += r.source_length < 8 && r.destination_length < 8;
  }
  std::printf("family %s, %zu rules asked, %zu generated (seed %u)\n", family->name.c_str(), count,
              rules.size(), seed);
  std::map<int, double> wanted_protocols;
  double total = 0;
  for (const ProtocolShare& p : family->protocols) total += p.weight;
  for (const ProtocolShare& p : family->protocols)
    wanted_protocols[p.protocol] = 100 * p.weight / total;
  print_shares("protocols (0 = any)", protocols, rules.size(), kTopPairs, wanted_protocols,
               [](int p) { return std::to_string(p); });
  size_t tcp_udp = 0;
  for (const auto& [name, n] : port_pairs) tcp_udp += n;
  print_shares("port pair classes of TCP/UDP rules (source/destination)", port_pairs, tcp_udp,
               kTopPairs, std::map<std::string, double>{}, [](const std::string& s) { return s; });
  print_shares("prefix length pairs (source, destination)", length_pairs, rules.size(), kTopPairs,
               std::map<std::pair<int, int>, double>{}, [](std::pair<int, int> p) {
                 return std::to_string(p.first) + "," + std::to_string(p.second);
               });
  std::printf("source wildcard %.2f%%, destination wildcard %.2f%%, both shorter than /8 %.2f%%\n",
              percent(source_wild, rules.size()), percent(destination_wild, rules.size()),
              percent(both_short, rules.size()));
  std::printf("distinct source prefixes %zu, destination prefixes %zu, /16 sites %zu\n",
              sources.size(), destinations.size(), sites.size());
  std::printf("prefix nesting: source %d, destination %d\n", max_nesting(sources),
              max_nesting(destinations));
  return 0;
}

}  // namespace keel::firewall::bench
