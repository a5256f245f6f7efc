#pragma once
// Random rule sets and packets over a small universe of values, so rules overlap and match.
#include <cstdint>
#include <random>
#include <string>

#include "keel/firewall/packet.hpp"

namespace keel::firewall::testing {

struct RandomRulesOptions {
  int rules = 40;
  int helper_chains = 2;
  bool long_runs = false;  // add runs of rules differing in one field (set tables)
  bool ip6 = false;        // rules of either family (each rule one family) and IPv6 packets
};

std::string random_ruleset(std::mt19937& rng, const RandomRulesOptions& options);
Packet random_packet(std::mt19937& rng);
Packet random_packet_both_families(std::mt19937& rng);  // half of them IPv6
inline constexpr int kRandomInterfaces = 3;  // eth0..eth2 are declared; ids 0..2, 255 = other

}  // namespace keel::firewall::testing
