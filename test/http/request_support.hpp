// A request as the parser would hand it over: a method, "/" and the given
// header fields, for the tests of what answers a request (static files).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "keel/http/request.hpp"

namespace keel::http::test {

inline Request request_with(std::vector<std::pair<std::string, std::string>> fields = {},
                            Method method = Method::get) {
  Request r;
  r.method = method;
  r.path = "/";
  for (auto& [name, value] : fields) r.fields.push_back({name, value});
  return r;
}

}  // namespace keel::http::test
