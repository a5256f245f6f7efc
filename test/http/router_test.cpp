// Routing: parameters, specificity, 404 / 405 with Allow / 501, HEAD as GET,
// and percent-decoding of path segments.
#include "keel/http/router.hpp"

#include <gtest/gtest.h>

#include <string>

namespace keel::http {
namespace {

Router<std::string> api() {
  Router<std::string> r;
  EXPECT_TRUE(r.add(Method::get, "/api/items", "list"));
  EXPECT_TRUE(r.add(Method::post, "/api/items", "create"));
  EXPECT_TRUE(r.add(Method::get, "/api/items/:id", "show"));
  EXPECT_TRUE(r.add(Method::delete_, "/api/items/:id", "remove"));
  EXPECT_TRUE(r.add(Method::get, "/api/items/new", "form"));
  EXPECT_TRUE(r.add(Method::get, "/api/items/:id/tags/:tag", "tag"));
  EXPECT_TRUE(r.add(Method::get, "/static/*file", "static"));
  EXPECT_TRUE(r.add(Method::get, "/", "root"));
  return r;
}

TEST(Router, Parameters) {
  const auto r = api();
  auto m = r.match(Method::get, "/api/items/42");
  ASSERT_EQ(m.result, RouteResult::found);
  EXPECT_EQ(*m.handler, "show");
  EXPECT_EQ(m.params.get("id"), "42");
  EXPECT_EQ(m.status(), 200);
  m = r.match(Method::get, "/api/items/7/tags/red");
  ASSERT_EQ(m.result, RouteResult::found);
  EXPECT_EQ(*m.handler, "tag");
  EXPECT_EQ(m.params.get("id"), "7");
  EXPECT_EQ(m.params.get("tag"), "red");
  EXPECT_EQ(m.params.get("none"), "");
  EXPECT_EQ(*r.match(Method::get, "/").handler, "root");
  EXPECT_EQ(*r.match(Method::delete_, "/api/items/9").handler, "remove");
}

TEST(Router, LiteralBeatsParameterInAnyOrder) {
  EXPECT_EQ(*api().match(Method::get, "/api/items/new").handler, "form");
  Router<int> r;
  ASSERT_TRUE(r.add(Method::get, "/:a/x", 1));
  ASSERT_TRUE(r.add(Method::get, "/y/:b", 2));
  ASSERT_TRUE(r.add(Method::get, "/*rest", 3));
  EXPECT_EQ(*r.match(Method::get, "/y/x").handler, 2);  // the first segment decides
  EXPECT_EQ(*r.match(Method::get, "/z/x").handler, 1);
  EXPECT_EQ(*r.match(Method::get, "/z/z").handler, 3);
}

TEST(Router, Wildcard) {
  const auto r = api();
  auto m = r.match(Method::get, "/static/css/site%20v2.css");
  ASSERT_EQ(m.result, RouteResult::found);
  EXPECT_EQ(m.params.get("file"), "css/site v2.css");
  EXPECT_EQ(r.match(Method::get, "/static/").params.get("file"), "");
  // An encoded '/' inside a wildcard would read as a separator: refused.
  EXPECT_EQ(r.match(Method::get, "/static/a%2Fb").result, RouteResult::bad_path);
}

TEST(Router, NotFoundAndMethodNotAllowed) {
  const auto r = api();
  EXPECT_EQ(r.match(Method::get, "/nothing").status(), 404);
  EXPECT_EQ(r.match(Method::get, "/api/items/").status(), 404);  // a parameter is never empty
  EXPECT_EQ(r.match(Method::get, "/api/items/1/2").status(), 404);
  auto m = r.match(Method::put, "/api/items/42");
  EXPECT_EQ(m.result, RouteResult::method_not_allowed);
  EXPECT_EQ(m.status(), 405);
  EXPECT_EQ(m.allow, "GET, HEAD, DELETE");  // RFC 9110 §15.5.6
  m = r.match(Method::delete_, "/api/items");
  EXPECT_EQ(m.allow, "GET, HEAD, POST");
  // /api/items/new: GET by its own route; DELETE by /api/items/:id.
  m = r.match(Method::put, "/api/items/new");
  EXPECT_EQ(m.allow, "GET, HEAD, DELETE");
}

TEST(Router, UnknownMethodIs501) {
  // RFC 9110 §9.1: a method the server does not recognize.
  EXPECT_EQ(api().match(Method::other, "/api/items").status(), 501);
}

// CONNECT's authority-form and OPTIONS's asterisk-form reach the router
// with no path: valid requests for what no route implements (found by the
// nginx differential, test_nginx_diff.py; it was 400).
TEST(Router, ConnectAndServerWideOptionsAre501) {
  const auto r = api();
  EXPECT_EQ(r.match(Method::connect, "").status(), 501);
  EXPECT_EQ(r.match(Method::options, "").status(), 501);
  EXPECT_EQ(r.match(Method::connect, "/").status(), 501);
}

TEST(Router, HeadFallsBackToGet) {
  auto r = api();
  EXPECT_EQ(*r.match(Method::head, "/api/items/1").handler, "show");
  ASSERT_TRUE(r.add(Method::head, "/api/items/:id", "head"));
  EXPECT_EQ(*r.match(Method::head, "/api/items/1").handler, "head");
  EXPECT_EQ(r.match(Method::head, "/nothing").status(), 404);
}

TEST(Router, PercentDecoding) {
  Router<int> r;
  ASSERT_TRUE(r.add(Method::get, "/caf%C3%A9/:name", 1));
  auto m = r.match(Method::get, "/caf%c3%a9/J%C3%BCrgen%20M");
  ASSERT_EQ(m.result, RouteResult::found);
  EXPECT_EQ(m.params.get("name"), "J\xc3\xbcrgen M");
  // %2F stays inside its segment.
  m = r.match(Method::get, "/caf%C3%A9/a%2Fb");
  ASSERT_EQ(m.result, RouteResult::found);
  EXPECT_EQ(m.params.get("name"), "a/b");
  for (std::string_view bad : {"/caf%C3%A9/%", "/caf%C3%A9/%4", "/caf%C3%A9/%zz", "/x%G0"}) {
    SCOPED_TRACE(bad);
    m = r.match(Method::get, bad);
    EXPECT_EQ(m.result, RouteResult::bad_path);
    EXPECT_EQ(m.path_error, PathError::bad_escape);
    EXPECT_EQ(m.status(), 400);
  }
  EXPECT_EQ(r.match(Method::get, "/a/%00").path_error, PathError::nul);
  EXPECT_EQ(r.match(Method::get, "/a/../etc").path_error, PathError::dot_segment);
  EXPECT_EQ(r.match(Method::get, "/a/%2e%2E/etc").path_error, PathError::dot_segment);
  EXPECT_EQ(r.match(Method::get, "/a/./b").path_error, PathError::dot_segment);
  EXPECT_EQ(r.match(Method::get, "a").path_error, PathError::not_absolute);
  EXPECT_EQ(r.match(Method::get, "/a/...").status(), 404);  // three dots is a name
}

TEST(Router, RefusesBadPatterns) {
  Router<int> r;
  EXPECT_FALSE(r.add(Method::get, "relative", 1));
  EXPECT_FALSE(r.add(Method::get, "/a/:", 1));
  EXPECT_FALSE(r.add(Method::get, "/a/:b-c", 1));
  EXPECT_FALSE(r.add(Method::get, "/*rest/more", 1));
  EXPECT_FALSE(r.add(Method::get, "/%zz", 1));
  EXPECT_FALSE(r.add(Method::other, "/", 1));
  EXPECT_TRUE(r.add(Method::get, "/a/:b", 1));
  EXPECT_FALSE(r.add(Method::get, "/a/:c", 2));  // the same route under another name
  EXPECT_TRUE(r.add(Method::post, "/a/:c", 2));
}

TEST(Path, Split) {
  std::vector<std::string> s;
  EXPECT_EQ(split_path("/", s), PathError::none);
  EXPECT_EQ(s, std::vector<std::string>{""});
  EXPECT_EQ(split_path("/a//b/", s), PathError::none);
  EXPECT_EQ(s, (std::vector<std::string>{"a", "", "b", ""}));
}

}  // namespace
}  // namespace keel::http
