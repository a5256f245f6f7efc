// IPv4: what the three paths share (input.cpp, forward.cpp, output.cpp).
#include "ip4.hpp"

#include <algorithm>

#include "net/stack_parts.hpp"

namespace net {
namespace {

ReassemblyLimits limits_of(const StackConfig& c) {
  constexpr std::size_t floor = std::size_t(256) << 10, ceiling = std::size_t(8) << 20;
  constexpr std::size_t share_of_memory = 16, share_per_source = 4;
  const ReassemblyConfig& r = c.reassembly;
  std::size_t bytes = r.max_bytes ? r.max_bytes
                                  : std::clamp(c.total_memory / share_of_memory, floor, ceiling);
  std::size_t per_source = r.max_bytes_per_source ? r.max_bytes_per_source : bytes / share_per_source;
  return {bytes, per_source, r.timeout};
}

}  // namespace

Ip4::Ip4(StackParts& parts, const StackConfig& config)
    : parts_(parts), reassembly_(parts.counters.ip4, limits_of(config)) {}

void Ip4::set_protocol(uint8_t protocol, Upper handler) {
  for (auto& [number, upper] : protocols_) {
    if (number == protocol) {
      upper = std::move(handler);
      return;
    }
  }
  protocols_.emplace_back(protocol, std::move(handler));
}

bool Ip4::passes(Hook hook, Packet& packet, InterfaceId in, InterfaceId out) {
  if (parts_.hooks.empty(hook) || parts_.hooks.run(hook, packet, in, out) == Verdict::accept)
    return true;
  ++parts_.counters.ip4.drop_by_hook;
  return false;
}

bool Ip4::is_local_address(ip4::Addr a) const {
  if (a.is_any()) return false;
  for (std::size_t i = 0; i < parts_.link_count(); ++i)
    if (parts_.link(InterfaceId(i)).address() == a) return true;
  return false;
}

bool Ip4::is_group_address(ip4::Addr a) const {
  if (a.is_broadcast() || a.is_multicast()) return true;
  for (std::size_t i = 0; i < parts_.link_count(); ++i)
    if (parts_.link(InterfaceId(i)).is_directed_broadcast(a)) return true;
  return false;
}

void Ip4::poll(uint64_t now) {
  reassembly_.expire(now);
  run_loopback();
}

uint64_t Ip4::next_deadline() const {
  return loopback_.empty() ? reassembly_.next_deadline() : 0;
}

}  // namespace net
