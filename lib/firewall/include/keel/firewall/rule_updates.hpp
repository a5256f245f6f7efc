#pragma once
// Replacing the rules of a running appliance over the network: a UDP management port speaks
// the rule-update protocol (update_channel.hpp: HMAC-SHA-256 on every message, sessions opened
// by a challenge, sequence numbers) and hands a blob that arrived whole, authenticated and
// validated to Appliance::replace_rules(). Unauthenticated or replayed datagrams get no reply
// and change nothing; replies go only to the sender of an authenticated request and are never
// larger than it. The key comes from the configuration (fw_key=32 to 128 hex digits); without
// one the port stays closed. The filter input chain sees these datagrams like any other.
// examples/firewall/push_rules.py is the client.
#include <array>
#include <cstdint>
#include <net/udp.hpp>

#include "keel/firewall/appliance.hpp"
#include "keel/firewall/update_channel.hpp"

namespace net {
class Stack;
}  // namespace net

namespace keel::firewall {

using RuleUpdateKey = update::Key;
using RuleUpdateCounters = update::Counters;
inline bool parse_rule_update_key(const std::string& hex, RuleUpdateKey& key) {
  return update::parse_key(hex, key);
}

class RuleUpdates {
 public:
  // Listens on `port` of every address; blobs up to `max_bytes`.
  RuleUpdates(net::Stack& stack, Appliance& appliance, uint16_t port, const RuleUpdateKey& key,
              size_t max_bytes);
  ~RuleUpdates();
  const RuleUpdateCounters& counters() const { return channel_.counters(); }

 private:
  update::Channel channel_;
  std::array<uint8_t, update::kMaxMessage> reply_{};
  net::UdpSocket socket_;
};

}  // namespace keel::firewall
