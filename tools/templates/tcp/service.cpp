// @NAME@: a line service on TCP port 7000: each line a client sends is
// answered with "@NAME@: you said: LINE"; "quit" ends the connection. A
// net::TcpStream reads by line and writes without losing data; a client
// that does not read its answers is slowed by TCP's window, not buffered
// without bound (docs/guide.md, "A TCP service").
#include <cstdio>
#include <net/stack.hpp>
#include <net/tcp_stream.hpp>
#include <os>
#include <string>

namespace {
constexpr uint16_t port = 7000;
}

void Service::start() {
  net::Stack& stack = net::stack();  // stops the image with a message if it has no NIC
  net::TcpOptions options;
  options.auto_consume = false;  // the TcpStream releases input itself
  auto listening = stack.tcp().listen(
      port,
      [](net::TcpConnection c) {
        auto opened = net::TcpStream::open(c);
        if (!opened) return;
        net::TcpStream s = *opened;
        s.on_line([s](std::string_view line) mutable {
          if (line == "quit") {
            s.close();  // after what is queued
            return;
          }
          std::string answer = "@NAME@: you said: " + std::string(line) + "\r\n";
          (void)s.write(answer);         // taken: reading pauses before the queue is full
          if (!s.writable()) s.pause();  // until on_drain
        });
        s.on_drain([s]() mutable { s.resume(); });
        s.on_end([s](std::span<const uint8_t>) mutable { s.close(); });  // the client is done
        s.on_error([s](net::TcpStreamError) mutable { s.close(); });     // a line over 8 KiB
      },
      options);
  if (!listening) {
    std::printf("@NAME@: cannot listen on port %u: %s\n", port, net::to_string(listening.status));
    os::shutdown(1);
    return;
  }
  static net::TcpListener listener = *listening;  // listens for as long as the image runs
  stack.interface(0).on_config([](net::Interface& nic) {
    std::printf("@NAME@: listening on %s:%u\n", nic.address().to_string().c_str(), port);
  });
}
