// The JSON helpers: media type, depth, invalid input, replies.
#include "keel/http/json.hpp"

#include <gtest/gtest.h>

#include "keel/http/request_parser.hpp"
#include "keel/http/response_writer.hpp"

namespace keel::http {
namespace {

Request with_type(std::string_view type) {
  Request r;
  r.fields.push_back({"Content-Type", std::string(type)});
  return r;
}

TEST(Json, ParsesABody) {
  nlohmann::json j;
  ASSERT_EQ(parse_json_body(with_type("application/json"), R"({"name":"a","n":[1,2]})", j),
            JsonError::none);
  EXPECT_EQ(j["name"], "a");
  EXPECT_EQ(j["n"][1], 2);
  EXPECT_EQ(parse_json_body(with_type("Application/JSON; charset=utf-8"), "[]", j),
            JsonError::none);
  EXPECT_EQ(parse_json_body(with_type("application/problem+json"), "{}", j), JsonError::none);
}

TEST(Json, Refusals) {
  nlohmann::json j;
  EXPECT_EQ(parse_json_body(Request{}, "{}", j), JsonError::wrong_media_type);
  EXPECT_EQ(parse_json_body(with_type("text/plain"), "{}", j), JsonError::wrong_media_type);
  EXPECT_EQ(parse_json_body(with_type("+json"), "{}", j), JsonError::wrong_media_type);
  EXPECT_EQ(status_of(JsonError::wrong_media_type), 415);
  for (std::string_view bad : {"", "{", "{\"a\":}", "[1,]", "nul", "{} x", "\"\\x\""}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(parse_json_body(with_type("application/json"), bad, j), JsonError::invalid);
  }
  EXPECT_EQ(status_of(JsonError::invalid), 400);
}

TEST(Json, DepthIsBounded) {
  nlohmann::json j;
  const Request r = with_type("application/json");
  EXPECT_EQ(parse_json_body(r, std::string(64, '[') + std::string(64, ']'), j), JsonError::none);
  EXPECT_EQ(parse_json_body(r, std::string(65, '[') + std::string(65, ']'), j),
            JsonError::too_deep);
  // A million brackets are refused before nlohmann sees them.
  EXPECT_EQ(parse_json_body(r, std::string(1'000'000, '['), j), JsonError::too_deep);
  // Brackets in strings do not count.
  EXPECT_EQ(parse_json_body(r, "[\"" + std::string(100, '[') + "\\\"\"]", j), JsonError::none);
}

TEST(Json, Reply) {
  const JsonReply reply = json_reply(status::created, {{"id", 7}, {"bad", "\xff"}});
  EXPECT_EQ(reply.body, "{\"bad\":\"\xef\xbf\xbd\",\"id\":7}");
  EXPECT_EQ(reply.head.status, 201);
  ASSERT_TRUE(reply.head.content_length);
  EXPECT_EQ(*reply.head.content_length, reply.body.size());

  // Through the writer, as a handler would send it.
  RequestParser p;
  ASSERT_EQ(p.parse("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").event, ParseEvent::headers_done);
  OutputBuffer out(1024);
  ResponseWriter w(out, p.request(), {.server = ""});
  const JsonReply e = json_error(status::not_found, "no item 7");
  ASSERT_EQ(w.write_head(e.head, 0), WriteStatus::ok);
  std::string_view body = e.body;
  ASSERT_EQ(w.write_body(body), WriteStatus::ok);
  ASSERT_EQ(w.finish(), WriteStatus::ok);
  const auto pending = out.pending();
  EXPECT_EQ(
      std::string_view(reinterpret_cast<const char*>(pending.data()), pending.size()),
      "HTTP/1.1 404 Not Found\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\n"
      "Content-Type: application/json\r\nContent-Length: 21\r\n\r\n{\"error\":\"no item 7\"}");
}

}  // namespace
}  // namespace keel::http
