// A minimal HTTP/1.0 server on port 80, for curl as a client of Keel's TCP
// (test/net/test_tcp_linux.py): `GET /N` answers N bytes of a known pattern
// (test/net/tcp_harness.py pattern()) and closes. The body goes out as one
// zero-copy buffer (TcpConnection::write(TcpBuffer)), the close after it.
#include <os>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <net/stack.hpp>
#include <string>

namespace {

constexpr uint16_t http_port = 80;
constexpr std::size_t max_request = 8192;
constexpr std::size_t max_body = std::size_t(512) << 20;

std::vector<uint8_t> body_of(std::size_t size) {
  std::vector<uint8_t> body(size);
  for (std::size_t i = 0; i < size; ++i) {
    std::size_t j = i % 65536;
    body[i] = uint8_t(j * 131 + (j >> 8) * 7);
  }
  return body;
}

void answer(net::TcpConnection c, const std::string& request) {
  std::size_t size = 0;
  if (request.rfind("GET /", 0) == 0) size = std::strtoull(request.c_str() + 5, nullptr, 10);
  size = std::min(size, max_body);
  std::string head = "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
                     std::to_string(size) + "\r\n\r\n";
  c.write(net::TcpBuffer::from(std::move(head)));
  if (size > 0) c.write(net::TcpBuffer::from(body_of(size)));
  c.close();  // after what is queued; no handler runs again
}

}  // namespace

void Service::start() {
  auto listening = net::stack().tcp().listen(http_port, [](net::TcpConnection c) {
    auto request = std::make_shared<std::string>();
    c.on_read([c, request](std::span<const uint8_t> data) mutable {
      request->append(reinterpret_cast<const char*>(data.data()), data.size());
      if (request->find("\r\n\r\n") != std::string::npos) answer(c, *request);
      else if (data.empty() || request->size() > max_request) c.close();
    });
  });
  if (!listening) {
    std::printf("tcp_http: cannot listen: %s\n", net::to_string(listening.status));
    os::shutdown(1);
    return;
  }
  static net::TcpListener listener = *listening;
  net::stack().interface(0).on_config([](net::Interface& i) {
    std::printf("tcp_http: listening on %s:%u\n", i.address().to_string().c_str(), http_port);
  });
}
