// A minimal HTTP/1.0 server on port 80, for curl as a client of Keel's TCP
// (test/net/test_tcp_linux.py): `GET /N` answers N bytes of a known pattern
// (test/net/tcp_harness.py pattern()) and closes. The body goes out as
// zero-copy pieces of one shared 64 KiB block (TcpConnection::write(TcpBuffer)),
// so it may be larger than the image's memory; the close follows it.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <net/stack.hpp>
#include <os>
#include <string>

namespace {

constexpr uint16_t http_port = 80;
constexpr std::size_t max_request = 8192;
constexpr std::size_t block_size = 65536;  // the pattern repeats with this period

// One period of the pattern, shared by every response (zero-copy writes).
const std::shared_ptr<const std::vector<uint8_t>>& pattern_block() {
  static const auto block = [] {
    std::vector<uint8_t> bytes(block_size);
    for (std::size_t j = 0; j < block_size; ++j) bytes[j] = uint8_t(j * 131 + (j >> 8) * 7);
    return std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  }();
  return block;
}

// A body in flight: pieces of the shared block go out as the send buffer
// takes them (on_writable), so a body of any size costs no memory of its own.
struct Response {
  net::TcpConnection connection;
  std::size_t left;
};

void pump(const std::shared_ptr<Response>& r) {
  while (r->left > 0) {
    net::TcpBuffer piece = net::TcpBuffer::from(pattern_block());
    piece.bytes = piece.bytes.first(std::min(r->left, block_size));
    std::size_t n = piece.bytes.size();
    if (r->connection.write(std::move(piece)) != net::Status::ok) {
      r->connection.on_writable([r] { pump(r); });
      return;
    }
    r->left -= n;
  }
  r->connection.close();  // after what is queued; no handler runs again
}

void answer(net::TcpConnection c, const std::string& request) {
  std::size_t size = 0;
  if (request.rfind("GET /", 0) == 0) size = std::strtoull(request.c_str() + 5, nullptr, 10);
  std::string head =
      "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
      std::to_string(size) + "\r\n\r\n";
  c.write(net::TcpBuffer::from(std::move(head)));
  c.on_read([](std::span<const uint8_t>) {});  // the request is complete
  pump(std::make_shared<Response>(Response{c, size}));
}

}  // namespace

void Service::start() {
  auto listening = net::stack().tcp().listen(http_port, [](net::TcpConnection c) {
    auto request = std::make_shared<std::string>();
    c.on_read([c, request](std::span<const uint8_t> data) mutable {
      request->append(reinterpret_cast<const char*>(data.data()), data.size());
      if (request->find("\r\n\r\n") != std::string::npos)
        answer(c, *request);
      else if (data.empty() || request->size() > max_request)
        c.close();
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
