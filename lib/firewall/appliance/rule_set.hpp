#pragma once
// A loaded rule set with what belongs to it: its hit counters and its log rate limiters. The
// appliance swaps whole RuleSets, so counters never outlive their rules.
#include <array>
#include <cstdint>
#include <vector>

#include "keel/firewall/appliance.hpp"
#include "keel/firewall/classifier.hpp"
#include "stateful/packet_info.hpp"

namespace net {
class Packet;
}

namespace keel::firewall {

// A token bucket per `log` rule: `rate` lines a minute, bursts of nftables' default 5.
struct LogBucket {
  static constexpr uint32_t kBurst = 5;
  uint32_t tokens = kBurst;
  uint64_t refilled_ns = 0;
  bool take(uint32_t per_minute, uint64_t now_ns);
};

struct Appliance::RuleSet {
  Classifier classifier;
  std::vector<uint64_t> hits;
  std::array<uint64_t, kChainSlots> policy_hits{};
  std::vector<LogBucket> log;  // one per rule, made when the first rule logs (rule_log.cpp)
};

// Per packet, from its first hook to its last: what tracking found, and the packet as read.
struct Appliance::Context {
  const net::Packet* packet = nullptr;
  PacketInfo info;
  Tracked tracked;
  bool has_conntrack = false;
};

}  // namespace keel::firewall
