#include "loopback_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "keel/http/request_parser.hpp"
#include "keel/http/response_writer.hpp"

namespace keel::http::test {
namespace {

constexpr int silence_ms = 20'000;         // a client that says nothing this long has failed
constexpr std::size_t out_capacity = 512;  // small: the writer must wait for room often

bool wait_readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, silence_ms) == 1;
}

bool send_all(int fd, OutputBuffer& out) {
  while (!out.empty()) {
    const auto pending = out.pending();
    const ssize_t n = ::send(fd, pending.data(), pending.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    out.consume(std::size_t(n));
  }
  return true;
}

}  // namespace

LoopbackServer::LoopbackServer() {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), len) == 0 && ::listen(listener_, 4) == 0 &&
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port_ = ntohs(a.sin_port);
}

LoopbackServer::~LoopbackServer() {
  if (listener_ >= 0) ::close(listener_);
}

bool LoopbackServer::serve(int count) {
  for (int i = 0; i < count; ++i) {
    if (port_ == 0 || !wait_readable(listener_)) return false;
    const int fd = ::accept(listener_, nullptr, nullptr);
    if (fd < 0) return false;
    const bool ok = serve_connection(fd, i);
    // RFC 9112 §9.6: close the sending side, then read until the client
    // closes, so data it was still sending cannot make the kernel reset
    // the connection over a response the client has not read yet.
    ::shutdown(fd, SHUT_WR);
    uint8_t rest[4096];
    while (wait_readable(fd) && ::recv(fd, rest, sizeof rest, 0) > 0) {
    }
    ::close(fd);
    if (!ok) return false;
  }
  return true;
}

bool LoopbackServer::serve_connection(int fd, int index) {
  RequestParser parser;
  OutputBuffer out(out_capacity);
  std::string input;
  std::string body;
  uint8_t buffer[4096];
  while (true) {
    // Parse what there is; read only when the parser needs more.
    std::string_view in = input;
    ParseStep step;
    while ((step = parser.parse(in)).event != ParseEvent::need_more) {
      in.remove_prefix(step.consumed);
      if (step.event == ParseEvent::headers_done && parser.request().expect_continue) {
        ResponseWriter interim(out, parser.request());
        if (interim.write_interim(status::continue_) != WriteStatus::ok || !send_all(fd, out))
          return false;
      } else if (step.event == ParseEvent::body) {
        body.append(reinterpret_cast<const char*>(step.body.data()), step.body.size());
      } else if (step.event == ParseEvent::error) {
        errors.push_back(status_of(parser.error()));
        Request closing;
        closing.keep_alive = false;
        ResponseWriter w(out, closing);
        Response r;
        r.status = status_of(parser.error());
        r.content_length = 0;
        return w.write_head(r, 0) == WriteStatus::ok && w.finish() == WriteStatus::ok &&
               send_all(fd, out);
      } else if (step.event == ParseEvent::message_done) {
        const Request& req = parser.request();
        const std::string line = req.method_text + " " + req.path + " 1." +
                                 std::to_string(req.version_minor) +
                                 " body=" + std::to_string(body.size());
        requests_.push_back(
            {line, req.expect_continue, req.framing == BodyFraming::chunked, index});
        ResponseWriter w(out, req);
        Response r;
        r.set("Content-Type", "text/plain");
        const std::string content = line + "\n" + body;
        if (req.path.ends_with("/length")) r.content_length = content.size();
        WriteStatus s = w.write_head(r, 0);
        std::string_view rest = content;
        while (s == WriteStatus::ok && !rest.empty()) {
          s = w.write_body(rest);
          if (s == WriteStatus::would_block && send_all(fd, out)) s = WriteStatus::ok;
        }
        while (s == WriteStatus::ok && (s = w.finish()) == WriteStatus::would_block)
          s = send_all(fd, out) ? WriteStatus::ok : WriteStatus::invalid;
        if (s != WriteStatus::ok || !send_all(fd, out)) return false;
        if (!w.keep_alive()) return true;
        body.clear();
        parser.reset();
      }
    }
    input.clear();  // need_more took every byte (a partial line is the parser's)
    if (!wait_readable(fd)) return false;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < 0) return false;
    if (n == 0) return true;  // the client closed
    input.append(reinterpret_cast<const char*>(buffer), std::size_t(n));
  }
}

std::string run_command(const std::string& command, int& status) {
  std::string output;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) {
    status = -1;
    return output;
  }
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, p)) > 0) output.append(buffer, n);
  const int raw = ::pclose(p);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return output;
}

}  // namespace keel::http::test
