// Routing by method and path. Patterns are paths whose segments may be
// parameters (":id", one segment) or, last, a wildcard ("*rest", the
// remaining segments):
//
//   http::Router<Handler> router;
//   router.add(http::Method::get, "/api/items", list);
//   router.add(http::Method::get, "/api/items/:id", show);
//   router.add(http::Method::delete_, "/api/items/:id", remove);
//   auto found = router.match(request.method, request.path);
//   // found.status(): 200 with found.handler and found.params.get("id");
//   // 404; 405 with found.allow for the Allow field (RFC 9110 §15.5.6);
//   // 501 for a method no route knows (RFC 9110 §9.1); 400 for a bad path.
//
// A path segment matches a literal before a parameter and a parameter
// before a wildcard, whatever the order routes were added in. HEAD is
// routed to GET's handler unless it has its own (RFC 9110 §9.3.2).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/http/method.hpp"
#include "keel/http/path.hpp"
#include "keel/http/status.hpp"

namespace keel::http {

struct RouteParams {
  std::vector<std::pair<std::string, std::string>> values;  // decoded
  // The value of parameter `name`, or "" if the route has none.
  std::string_view get(std::string_view name) const;
};

enum class RouteResult : uint8_t {
  found,
  not_found,
  method_not_allowed,
  not_implemented,
  bad_path
};

struct RouteMatch {
  RouteResult result = RouteResult::not_found;
  std::size_t route = 0;  // RouteResult::found: the id given to add()
  RouteParams params;
  std::string allow;  // RouteResult::method_not_allowed: "GET, HEAD, POST"
  PathError path_error = PathError::none;
  StatusCode status() const;
};

// Routes to numbers; Router below maps them to handlers.
class RouteTable {
 public:
  // False if the pattern is malformed or the method already has it.
  bool add(Method method, std::string_view pattern, std::size_t id);
  RouteMatch match(Method method, std::string_view path) const;

 private:
  enum class Kind : uint8_t { literal, parameter, wildcard };
  struct Segment {
    Kind kind;
    std::string text;  // the literal (decoded) or the parameter's name
  };
  struct Route {
    Method method;
    std::vector<Segment> segments;
    std::size_t id;
  };
  // Whether `route` matches; its specificity (kinds by segment) into `rank`.
  static bool matches(const Route& route, const std::vector<std::string>& path,
                      std::vector<Kind>& rank, RouteParams* params);

  std::vector<Route> routes_;
};

template <typename Handler>
class Router {
 public:
  bool add(Method method, std::string_view pattern, Handler handler) {
    if (!table_.add(method, pattern, handlers_.size())) return false;
    handlers_.push_back(std::move(handler));
    return true;
  }
  struct Found : RouteMatch {
    const Handler* handler = nullptr;  // RouteResult::found only
  };
  Found match(Method method, std::string_view path) const {
    Found f{table_.match(method, path)};
    if (f.result == RouteResult::found) f.handler = &handlers_[f.route];
    return f;
  }

 private:
  RouteTable table_;
  std::vector<Handler> handlers_;
};

}  // namespace keel::http
