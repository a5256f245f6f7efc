// IPv6 at the hook points (api/net/hooks.hpp): the same chains IPv4 runs,
// the packet's family named (decision 0135).
#include "ip6.hpp"
#include "net/stack_parts.hpp"

namespace net {

bool Ip6::passes(Hook hook, Packet& packet, InterfaceId in, InterfaceId out) {
  Hooks& hooks = parts_.hooks;
  if (hooks.empty(hook) ||
      hooks.run(hook, packet, in, out, Address::Family::ip6) == Verdict::accept)
    return true;
  ++parts_.counters.ip6.drop_by_hook;
  return false;
}

}  // namespace net
