// The routing table (api/net/routes.hpp): a list sorted so that the first
// route containing a destination is its longest match with the lowest metric.
#include <algorithm>
#include <net/routes.hpp>

namespace net {

std::string Route::to_string() const {
  std::string s = destination.to_string() + "/" + std::to_string(prefix_len);
  if (!gateway.is_any()) s += " via " + gateway.to_string();
  s += " dev " + std::to_string(interface) + " metric " + std::to_string(metric);
  if (!source.is_any()) s += " src " + source.to_string();
  return s;
}

Status Routes::add(Route route) {
  constexpr uint8_t max_prefix = 32;
  if (route.prefix_len > max_prefix || route.interface >= interface_count_) return Status::invalid;
  route.destination.value &= ip4::netmask_of(route.prefix_len).value;
  auto same = [&](const Route& r) {
    return r.destination == route.destination && r.prefix_len == route.prefix_len &&
           r.interface == route.interface && r.gateway == route.gateway;
  };
  std::erase_if(routes_, same);
  auto position = std::find_if(routes_.begin(), routes_.end(), [&](const Route& r) {
    return r.prefix_len < route.prefix_len ||
           (r.prefix_len == route.prefix_len && r.metric > route.metric);
  });
  routes_.insert(position, route);
  return Status::ok;
}

bool Routes::remove(ip4::Addr destination, uint8_t prefix_len, InterfaceId interface) {
  destination.value &= ip4::netmask_of(prefix_len).value;
  return std::erase_if(routes_, [&](const Route& r) {
           return r.destination == destination && r.prefix_len == prefix_len &&
                  r.interface == interface;
         }) > 0;
}

void Routes::remove_interface(InterfaceId interface) {
  std::erase_if(routes_, [&](const Route& r) { return r.interface == interface; });
}

std::optional<Route> Routes::lookup(ip4::Addr destination) const {
  for (const Route& r : routes_)
    if (r.contains(destination)) return r;
  return std::nullopt;
}

}  // namespace net
