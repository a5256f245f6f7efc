// The routing tables (api/net/routes.hpp): a list sorted so that the first
// route containing a destination is its longest match with the lowest
// metric. One template for both families: only the address differs.
#include <algorithm>
#include <net/routes.hpp>

namespace net {
namespace {

template <class R>
std::string route_text(const R& r) {
  std::string s = Address(r.destination).to_string() + "/" + std::to_string(r.prefix_len);
  if (!r.gateway.is_any()) s += " via " + Address(r.gateway).to_string();
  s += " dev " + std::to_string(r.interface) + " metric " + std::to_string(r.metric);
  if (!r.source.is_any()) s += " src " + Address(r.source).to_string();
  return s;
}

}  // namespace

std::string Route::to_string() const { return route_text(*this); }
std::string Route6::to_string() const { return route_text(*this); }

ip6::Addr Route6::network(const ip6::Addr& a, uint8_t prefix_len) {
  ip6::Addr n = a;
  constexpr int bits = 8;
  for (int i = 0; i < int(n.bytes.size()); ++i) {
    int keep = std::clamp(int(prefix_len) - i * bits, 0, bits);
    n.bytes[i] &= uint8_t(0xff00 >> keep);
  }
  return n;
}

template <class R>
Status RouteTable<R>::add(R route) {
  if (route.prefix_len > R::max_prefix || route.interface >= interface_count_)
    return Status::invalid;
  route.destination = R::network(route.destination, route.prefix_len);
  auto same = [&](const R& r) {
    return r.destination == route.destination && r.prefix_len == route.prefix_len &&
           r.interface == route.interface && r.gateway == route.gateway;
  };
  std::erase_if(routes_, same);
  auto position = std::find_if(routes_.begin(), routes_.end(), [&](const R& r) {
    return r.prefix_len < route.prefix_len ||
           (r.prefix_len == route.prefix_len && r.metric > route.metric);
  });
  routes_.insert(position, route);
  return Status::ok;
}

template <class R>
bool RouteTable<R>::remove(Addr destination, uint8_t prefix_len, InterfaceId interface) {
  destination = R::network(destination, prefix_len);
  return std::erase_if(routes_, [&](const R& r) {
           return r.destination == destination && r.prefix_len == prefix_len &&
                  r.interface == interface;
         }) > 0;
}

template <class R>
void RouteTable<R>::remove_interface(InterfaceId interface) {
  std::erase_if(routes_, [&](const R& r) { return r.interface == interface; });
}

template <class R>
std::optional<R> RouteTable<R>::lookup(const Addr& destination) const {
  for (const R& r : routes_)
    if (r.contains(destination)) return r;
  return std::nullopt;
}

template class RouteTable<Route>;
template class RouteTable<Route6>;

}  // namespace net
