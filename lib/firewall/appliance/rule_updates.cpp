// The management port that replaces rules (rule_updates.hpp): update_channel.hpp on a UDP
// socket.
#include "keel/firewall/rule_updates.hpp"

#include <net/stack.hpp>
#include <random>

namespace keel::firewall {
namespace {

// Session challenges must be unpredictable (the kernel's random source; getrandom on Linux).
void random_bytes(std::span<uint8_t> out) {
  std::random_device random;
  for (size_t i = 0; i < out.size(); i += sizeof(uint32_t)) {
    uint32_t word = random();
    for (size_t j = 0; j < sizeof word && i + j < out.size(); ++j)
      out[i + j] = uint8_t(word >> 8 * j);
  }
}

}  // namespace

RuleUpdates::RuleUpdates(net::Stack& stack, Appliance& appliance, uint16_t port,
                         const RuleUpdateKey& key, size_t max_bytes)
    : channel_(
          key, max_bytes,
          [&appliance](std::span<const uint8_t> blob) { return appliance.replace_rules(blob); },
          random_bytes) {
  auto bound = stack.udp().bind(port);
  if (!bound) return;
  socket_ = *bound;
  socket_.on_read([this](const net::UdpDatagram& d) {
    // Only an authenticated, fresh request is answered, and only to its own source.
    size_t n = channel_.handle(d.payload, reply_);
    if (n) socket_.send_to(d.source, {reply_.data(), n}, d.destination.address);
  });
}

RuleUpdates::~RuleUpdates() { socket_.close(); }

}  // namespace keel::firewall
