// The route table: a linear walk over the routes, keeping the most
// specific match (services have tens of routes, not thousands).
#include "keel/http/router.hpp"

#include <algorithm>

#include "syntax/chars.hpp"

namespace keel::http {
namespace {

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!(syntax::is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      return false;
  return true;
}

}  // namespace

std::string_view RouteParams::get(std::string_view name) const {
  for (const auto& [key, value] : values)
    if (key == name) return value;
  return {};
}

StatusCode RouteMatch::status() const {
  switch (result) {
    case RouteResult::found:
      return status::ok;
    case RouteResult::not_found:
      return status::not_found;
    case RouteResult::method_not_allowed:
      return status::method_not_allowed;
    case RouteResult::not_implemented:
      return status::not_implemented;
    case RouteResult::bad_path:
      return status::bad_request;
  }
  return status::internal_server_error;
}

bool RouteTable::add(Method method, std::string_view pattern, std::size_t id) {
  if (method == Method::other || pattern.empty() || pattern.front() != '/') return false;
  Route route{method, {}, id};
  std::string_view rest = pattern.substr(1);
  while (true) {
    const std::size_t slash = rest.find('/');
    const std::string_view raw = rest.substr(0, slash);
    if (!route.segments.empty() && route.segments.back().kind == Kind::wildcard) return false;
    if (!raw.empty() && (raw.front() == ':' || raw.front() == '*')) {
      if (!valid_name(raw.substr(1))) return false;
      route.segments.push_back(
          {raw.front() == ':' ? Kind::parameter : Kind::wildcard, std::string(raw.substr(1))});
    } else {
      std::string literal;
      if (!percent_decode(raw, literal)) return false;
      route.segments.push_back({Kind::literal, std::move(literal)});
    }
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  for (const Route& r : routes_) {
    if (r.method != method || r.segments.size() != route.segments.size()) continue;
    const bool same =
        std::equal(r.segments.begin(), r.segments.end(), route.segments.begin(),
                   [](const Segment& a, const Segment& b) {
                     return a.kind == b.kind && (a.kind != Kind::literal || a.text == b.text);
                   });
    if (same) return false;
  }
  routes_.push_back(std::move(route));
  return true;
}

bool RouteTable::matches(const Route& route, const std::vector<std::string>& path,
                         std::vector<Kind>& rank, RouteParams* params) {
  rank.clear();
  const auto& segs = route.segments;
  const bool wildcard = !segs.empty() && segs.back().kind == Kind::wildcard;
  const std::size_t fixed = wildcard ? segs.size() - 1 : segs.size();
  if (wildcard ? path.size() < fixed : path.size() != fixed) return false;
  for (std::size_t i = 0; i < fixed; ++i) {
    if (segs[i].kind == Kind::literal && segs[i].text != path[i]) return false;
    // A parameter takes one non-empty segment ("/items/" has no id).
    if (segs[i].kind == Kind::parameter && path[i].empty()) return false;
    rank.push_back(segs[i].kind);
  }
  if (wildcard) rank.push_back(Kind::wildcard);
  if (params == nullptr) return true;
  params->values.clear();
  for (std::size_t i = 0; i < fixed; ++i)
    if (segs[i].kind == Kind::parameter) params->values.emplace_back(segs[i].text, path[i]);
  if (wildcard) {
    std::string joined;
    for (std::size_t i = fixed; i < path.size(); ++i) {
      // A decoded '/' in a wildcard's segments would read as a separator.
      if (path[i].find('/') != std::string::npos) return false;
      if (i > fixed) joined += '/';
      joined += path[i];
    }
    params->values.emplace_back(segs.back().text, std::move(joined));
  }
  return true;
}

RouteMatch RouteTable::match(Method method, std::string_view path) const {
  RouteMatch m;
  // RFC 9110 §9.1: a method no route knows is 501. So are CONNECT (a tunnel,
  // §9.3.6) and a server-wide OPTIONS * (§9.3.7): their targets (authority-
  // and asterisk-form) have no path for a route, and the request is valid,
  // so not the client's error (400) but functionality we do not implement.
  if (method == Method::other || method == Method::connect || path.empty()) {
    m.result = RouteResult::not_implemented;
    return m;
  }
  std::vector<std::string> segments;
  m.path_error = split_path(path, segments);
  if (m.path_error != PathError::none) {
    m.result = RouteResult::bad_path;
    return m;
  }
  // HEAD falls back to GET's route (RFC 9110 §9.3.2) when it has none.
  const Route* best = nullptr;
  std::vector<Kind> best_rank;
  std::vector<Kind> rank;
  bool allowed[method_count] = {};
  for (Method wanted : {method, Method::get}) {
    for (const Route& r : routes_) {
      if (!matches(r, segments, rank, nullptr)) continue;
      allowed[std::size_t(r.method)] = true;
      if (r.method != wanted || (best != nullptr && best_rank <= rank)) continue;
      best = &r;
      best_rank = rank;
    }
    if (best != nullptr || method != Method::head) break;
  }
  if (best != nullptr && matches(*best, segments, rank, &m.params)) {
    m.result = RouteResult::found;
    m.route = best->id;
    return m;
  }
  if (best != nullptr) {  // a wildcard over a decoded '/'
    m.result = RouteResult::bad_path;
    return m;
  }
  if (allowed[std::size_t(Method::get)]) allowed[std::size_t(Method::head)] = true;
  for (std::size_t i = 0; i < method_count; ++i) {
    if (!allowed[i]) continue;
    if (!m.allow.empty()) m.allow += ", ";
    m.allow += to_string(Method(i));
  }
  m.result = m.allow.empty() ? RouteResult::not_found : RouteResult::method_not_allowed;
  return m;
}

}  // namespace keel::http
