// serve_static (server.hpp): a static file tree mounted on the router.
#include <memory>
#include <string>

#include "keel/http/server.hpp"
#include "keel/http/static_files.hpp"

namespace keel::http {
namespace {

void answer(const StaticTree& tree, Exchange ex) {
  const Request& req = ex.request();
  const StaticFound found = lookup_static(tree, ex.param("path"));
  switch (found.kind) {
    case StaticLookup::not_found:
      ex.respond(status::not_found);
      return;
    case StaticLookup::directory: {
      // As nginx: a directory without its final '/' is redirected to it, so
      // the page's relative links resolve below it (RFC 9110 §15.4.2).
      Response r;
      r.status = status::moved_permanently;
      r.set("Location", req.path + "/" + (req.query.empty() ? "" : "?" + req.query));
      ex.respond(r);
      return;
    }
    case StaticLookup::file: {
      StaticReply reply = answer_static(*found.file, req);
      ex.respond_static(std::move(reply.head), reply.content);
      return;
    }
  }
}

}  // namespace

bool serve_static(Server& server, std::string_view prefix, const StaticTree& tree) {
  std::string base(prefix);
  while (!base.empty() && base.back() == '/') base.pop_back();
  // "/mount/*path" takes "/mount", "/mount/" and everything below; HEAD is
  // GET's route (router.hpp). A directory asked as "/mount" has path ""
  // but no final '/': answer() tells it apart by the request's path.
  const StaticTree* t = &tree;
  return server.route(Method::get, base + "/*path", [t](Exchange ex) {
    const std::string& path = ex.request().path;
    if (ex.param("path").empty() && !path.ends_with('/')) {
      Response r;
      r.status = status::moved_permanently;
      const std::string& query = ex.request().query;
      r.set("Location", path + "/" + (query.empty() ? "" : "?" + query));
      ex.respond(r);
      return;
    }
    answer(*t, ex);
  });
}

}  // namespace keel::http
