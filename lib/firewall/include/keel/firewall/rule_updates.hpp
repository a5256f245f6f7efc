#pragma once
// Replacing the rules of a running appliance over the network: a UDP management port takes a
// new blob in pieces and, once whole, authenticated and validated, hands it to
// Appliance::replace_rules(). Each message is one datagram, integers big-endian:
//
//   "KFW1" 1 GENERATION(8) SIZE(4)     begin: a blob of SIZE bytes, numbered GENERATION
//   "KFW1" 2 OFFSET(4) BYTES...        a piece at OFFSET
//   "KFW1" 3 TAG(16)                   commit: TAG authenticates "KFW1" GENERATION SIZE BLOB
//
// TAG is SipHash-2-4 (a keyed pseudorandom function, so a MAC) of that text under the 128-bit
// key and under the key with its first half inverted, the two 64-bit results in a row; only a
// GENERATION above the last one loaded is taken, so a recorded upload cannot be played again.
// Every message is answered "KFW1" (0x80 | type) STATUS(1) GENERATION(8) TEXT; refusals are
// counted. The key comes from the configuration (fw_key=32 hex digits); without one the port
// stays closed. The filter input chain sees these datagrams like any other.
#include <cstdint>
#include <net/udp.hpp>
#include <span>
#include <string>
#include <vector>

#include "keel/firewall/appliance.hpp"

namespace net {
class Stack;
}  // namespace net

namespace keel::firewall {

struct RuleUpdateKey {
  uint64_t k0 = 0, k1 = 0;
};

// Parses 32 hex digits; false if `text` is not exactly that.
bool parse_rule_update_key(const std::string& text, RuleUpdateKey& key);
// The 16-byte tag of a blob (for tools and tests).
std::vector<uint8_t> rule_update_tag(const RuleUpdateKey& key, uint64_t generation,
                                     std::span<const uint8_t> blob);

struct RuleUpdateCounters {
  uint64_t messages = 0, begun = 0, loaded = 0, refused_malformed = 0, refused_size = 0,
           refused_generation = 0, refused_tag = 0, refused_blob = 0;
  template <class Fn>
  void for_each(Fn&& fn) const {
    fn("messages", messages), fn("begun", begun), fn("loaded", loaded),
        fn("refused_malformed", refused_malformed);
    fn("refused_size", refused_size), fn("refused_generation", refused_generation),
        fn("refused_tag", refused_tag);
    fn("refused_blob", refused_blob);
  }
};

class RuleUpdates {
 public:
  // Listens on `port` of every address; blobs up to `max_bytes`.
  RuleUpdates(net::Stack& stack, Appliance& appliance, uint16_t port, const RuleUpdateKey& key,
              size_t max_bytes);
  ~RuleUpdates();
  const RuleUpdateCounters& counters() const { return counters_; }

 private:
  void receive(std::span<const uint8_t> message, std::string& reply_text, uint8_t& status);
  Appliance& appliance_;
  RuleUpdateKey key_;
  size_t max_bytes_;
  uint64_t loaded_generation_ = 0;
  uint64_t generation_ = 0;
  std::vector<uint8_t> buffer_;  // "KFW1" GENERATION SIZE, then the blob
  std::vector<bool> have_;       // which 1 KiB pieces arrived
  RuleUpdateCounters counters_;
  net::UdpSocket socket_;
};

}  // namespace keel::firewall
