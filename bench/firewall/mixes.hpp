#pragma once
// Rule-mix generators for the benchmark and the packets each mix is measured with.
//  a: TCP destination-port rules (distinct ports, at most 65,536)
//  b: a blocklist of /32 source addresses
//  c: source or destination prefixes of mixed lengths (/8../32), one prefix per rule
//  d: ClassBench-style 5-tuples: clustered src/dst prefixes, port ranges, tcp/udp/any; every
//     rule names an address, so (nearly) every rule is live
//  e: an alias of d (its name in results before d was made live)
//  f: d's generator allowing rules without addresses: early match-all rules make most later
//     rules dead (the old, redundant mix d)
//  acl, fw, ipc: realistic filter sets of ClassBench's three families (classbench_model.hpp),
//     packets drawn from the rules' boxes as ClassBench's trace generator does
#include <random>
#include <string>
#include <vector>

#include "keel/firewall/packet.hpp"

namespace keel::firewall::bench {

std::string generate_rules(const std::string& mix, size_t count, uint32_t seed);
std::vector<Packet> generate_packets(const std::string& mix, const std::string& rules_text,
                                     size_t count, uint32_t seed);
bool known_mix(const std::string& mix);
// A packet as a `keel-fw classify` line on the filter chain's forward hook (the bench's chain).
std::string packet_line(const Packet& packet);
// Prints the protocol, port class and prefix length statistics of a generated acl|fw|ipc set
// next to the profile's shares (filter_stats.cpp). Returns a process exit code.
int print_filter_stats(const std::string& mix, size_t count, uint32_t seed);

}  // namespace keel::firewall::bench
