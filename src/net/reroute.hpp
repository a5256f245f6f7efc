// What both families do after the output hook: a destination the hook
// rewrote (NAT) is routed anew, from the same source. `Ip` is Ip4 or Ip6.
#pragma once
#include <net/routes.hpp>
#include <net/status.hpp>

namespace net {

template <class Ip, class Addr>
Status route_rewritten(const Ip& ip, const Addr& now_to, const Addr& source, Addr& destination,
                       InterfaceId& out, Addr& next_hop) {
  if (now_to == destination) return Status::ok;
  auto again = ip.route(now_to, source);
  if (!again) return again.status;
  out = again->interface;
  next_hop = again->next_hop;
  destination = now_to;
  return Status::ok;
}

}  // namespace net
