// IPv4: what the three paths share (input.cpp, forward.cpp, output.cpp).
#include "ip4.hpp"

#include <algorithm>

#include "net/stack_parts.hpp"

namespace net {
Ip4::Ip4(StackParts& parts, const StackConfig& config)
    : parts_(parts),
      hooks_(parts.hooks),
      reassembly_(parts.counters.ip4, reassembly_limits(config, config.reassembly.timeout)) {}

void Ip4::set_protocol(uint8_t protocol, Upper handler) {
  if (protocols_[protocol] == no_protocol) {
    protocols_[protocol] = uint8_t(uppers_.size());
    uppers_.emplace_back();
  }
  uppers_[protocols_[protocol]] = std::move(handler);
}

bool Ip4::run_hook(Hook hook, Packet& packet, InterfaceId in, InterfaceId out) {
  if (hooks_.run(hook, packet, in, out, Address::Family::ip4) == Verdict::accept) return true;
  ++parts_.counters.ip4.drop_by_hook;
  return false;
}

void Ip4::addresses_changed() {
  local_.clear();
  broadcasts_.clear();
  for (std::size_t i = 0; i < parts_.link_count(); ++i) {
    const Link& link = parts_.link(InterfaceId(i));
    if (!link.is_configured()) continue;
    local_.push_back(link.address());
    if (!link.directed_broadcast().is_broadcast()) broadcasts_.push_back(link.directed_broadcast());
  }
}

void Ip4::poll(uint64_t now) {
  reassembly_.expire(now);
  run_loopback();
}

uint64_t Ip4::next_deadline() const { return loopback_.empty() ? reassembly_.next_deadline() : 0; }

}  // namespace net
