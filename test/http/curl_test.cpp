// A real client against the parser and the writer: curl (Debian's) talks
// to LoopbackServer on 127.0.0.1, with keep-alive, a chunked upload behind
// Expect: 100-continue, HTTP/1.0, HEAD, and a smuggling-shaped request.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <future>
#include <string>

#include "loopback_server.hpp"

namespace keel::http::test {
namespace {

// curl's own limit only ends a run that is already failing.
const std::string curl = "curl --silent --show-error --max-time 30 ";

struct ClientRun {
  std::string output;
  int status = -1;
};

// Starts `command` (curl), serves `connections`, returns curl's result.
ClientRun with_server(LoopbackServer& server, const std::string& command, int connections) {
  auto client = std::async(std::launch::async, [command] {
    ClientRun r;
    r.output = run_command(command, r.status);
    return r;
  });
  EXPECT_TRUE(server.serve(connections));
  return client.get();
}

std::string url(const LoopbackServer& s, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(s.port()) + path;
}

bool have_curl() { return ::access("/usr/bin/curl", X_OK) == 0; }

TEST(Curl, KeepAliveCarriesBothRequests) {
  if (!have_curl()) GTEST_SKIP() << "curl is not installed";
  LoopbackServer s;
  const ClientRun r = with_server(s, curl + url(s, "/a") + " " + url(s, "/b/length"), 1);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output, "GET /a 1.1 body=0\nGET /b/length 1.1 body=0\n");
  ASSERT_EQ(s.requests().size(), 2u);
  EXPECT_EQ(s.requests()[1].connection, 0);  // the same connection
}

TEST(Curl, ChunkedUploadAfter100Continue) {
  if (!have_curl()) GTEST_SKIP() << "curl is not installed";
  char path[] = "/tmp/keel-http-upload.XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string data;
  for (int i = 0; data.size() < 300'000; ++i) data += std::to_string(i * 7919) + "\n";
  ASSERT_EQ(::write(fd, data.data(), data.size()), ssize_t(data.size()));
  ::close(fd);
  LoopbackServer s;
  // -T - reads stdin: length unknown, so curl sends Transfer-Encoding: chunked.
  const ClientRun r =
      with_server(s, curl + "-H 'Expect: 100-continue' -T - " + url(s, "/up") + " < " + path, 1);
  ::unlink(path);
  EXPECT_EQ(r.status, 0);
  ASSERT_EQ(s.requests().size(), 1u);
  EXPECT_TRUE(s.requests()[0].expect_continue);
  EXPECT_TRUE(s.requests()[0].chunked);
  const std::string line = "PUT /up 1.1 body=" + std::to_string(data.size());
  EXPECT_EQ(s.requests()[0].line, line);
  EXPECT_TRUE(r.output == line + "\n" + data) << "echo differs, " << r.output.size() << " bytes";
}

TEST(Curl, Http10EndsWithTheConnection) {
  if (!have_curl()) GTEST_SKIP() << "curl is not installed";
  LoopbackServer s;
  const ClientRun r = with_server(s, curl + "--http1.0 -d hello " + url(s, "/form"), 1);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output, "POST /form 1.0 body=5\nhello");
}

TEST(Curl, HeadHasNoContent) {
  if (!have_curl()) GTEST_SKIP() << "curl is not installed";
  LoopbackServer s;
  const ClientRun r = with_server(s, curl + "--head " + url(s, "/h/length"), 1);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r.output;
  // "HEAD /h/length 1.1 body=0\n", the GET's length.
  EXPECT_NE(r.output.find("Content-Length: 26\r\n"), std::string::npos) << r.output;
}

TEST(Curl, ContentLengthWithTransferEncodingIsRefused) {
  if (!have_curl()) GTEST_SKIP() << "curl is not installed";
  LoopbackServer s;
  const ClientRun r = with_server(s,
                                  curl +
                                      "-o /dev/null -w '%{http_code}' -H 'Content-Length: 5' "
                                      "-H 'Transfer-Encoding: chunked' -d hello " +
                                      url(s, "/x"),
                                  1);
  EXPECT_EQ(r.output, "400");
  EXPECT_EQ(s.errors, std::vector<int>{400});
  EXPECT_TRUE(s.requests().empty());
}

}  // namespace
}  // namespace keel::http::test
