// A minimal HTTP server on a loopback socket, built from lib/http's parser
// and writer only, so real clients (curl) can be pointed at them in unit
// tests. Blocking, one connection at a time; a test harness, not the server
// issue 23 asks for (that one runs on net::TcpStream).
//
// Every request is answered with its own description ("PUT /path 1.1
// body=N\n"), then its body echoed, chunked (length unknown) or with
// Content-Length if the path ends in "/length". A parse error is answered
// with status_of(error) and the connection closed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace keel::http::test {

struct ServedRequest {
  std::string line;  // "GET /a 1.1 body=0"
  bool expect_continue = false;
  bool chunked = false;
  int connection = 0;  // which accepted connection carried it
};

class LoopbackServer {
 public:
  LoopbackServer();  // listens on 127.0.0.1, an ephemeral port
  ~LoopbackServer();
  uint16_t port() const { return port_; }
  // Serves connections until `count` of them have closed. False if a
  // socket call failed or a client went silent for 20 s.
  bool serve(int count);
  const std::vector<ServedRequest>& requests() const { return requests_; }
  std::vector<int> errors;  // statuses of refused requests

 private:
  bool serve_connection(int fd, int index);
  int listener_ = -1;
  uint16_t port_ = 0;
  std::vector<ServedRequest> requests_;
};

// Runs a shell command; its stdout, and its exit status in `status`.
std::string run_command(const std::string& command, int& status);

}  // namespace keel::http::test
