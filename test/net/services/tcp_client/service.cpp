// Keel as a TCP client (test/net/test_tcp_linux.py): connects to
// `connect=ADDR:PORT`, sends `bytes=N` bytes of a known pattern, half-closes,
// reads what the server sends until it closes, checks it against the same
// pattern, prints the outcome and exits (0: every byte right).
//
// The pattern: byte i of the stream is block[i % 65536], block[j] =
// (j * 131 + (j >> 8) * 7) mod 256.
#include <cstdio>
#include <cstdlib>
#include <net/stack.hpp>
#include <os>
#include <string>

namespace {

constexpr std::size_t block_size = 65536;
uint8_t pattern_at(uint64_t i) {
  uint64_t j = i % block_size;
  return uint8_t(j * 131 + (j >> 8) * 7);
}

struct Client {
  net::TcpConnection connection;
  uint64_t to_send = 0, sent = 0, received = 0, wrong = 0;
  uint8_t chunk[16384];

  void pump() {
    while (sent < to_send) {
      std::size_t n = std::min<uint64_t>(sizeof chunk, to_send - sent);
      for (std::size_t i = 0; i < n; ++i) chunk[i] = pattern_at(sent + i);
      auto taken = connection.write(chunk, n);
      if (!taken) return;  // on_writable comes back
      sent += *taken;
    }
    connection.shutdown();
  }
};

Client client;

std::string arg(const char* key) {
  std::string prefix = std::string(key) + "=";
  for (const std::string& a : os::args())
    if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
  return {};
}

}  // namespace

void Service::start() {
  auto target = net::Endpoint::parse(arg("connect"));
  client.to_send = std::strtoull(arg("bytes").c_str(), nullptr, 10);
  if (!target) {
    std::printf("tcp_client: give connect=ADDR:PORT\n");
    os::shutdown(2);
    return;
  }
  net::stack().interface(0).on_config([target](net::Interface&) {
    if (client.connection.is_open()) return;
    auto c = net::stack().tcp().connect(*target, [](net::TcpConnection) { client.pump(); });
    if (!c) {
      std::printf("tcp_client: connect: %s\n", net::to_string(c.status));
      os::shutdown(1);
      return;
    }
    client.connection = *c;
    c->on_writable([] { client.pump(); });
    c->on_read([](std::span<const uint8_t> data) {
      for (uint8_t b : data) client.wrong += b != pattern_at(client.received++);
    });
    c->on_close([](net::TcpCloseReason reason) {
      std::printf("tcp_client: %s, sent %llu received %llu wrong %llu retransmits %llu\n",
                  net::to_string(reason), static_cast<unsigned long long>(client.sent),
                  static_cast<unsigned long long>(client.received),
                  static_cast<unsigned long long>(client.wrong),
                  static_cast<unsigned long long>(net::stack().tcp().counters().retransmits));
      bool ok = reason == net::TcpCloseReason::closed && client.wrong == 0 &&
                client.sent == client.to_send;
      os::shutdown(ok ? 0 : 1);
    });
  });
}
