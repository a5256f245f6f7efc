// What the HTTP server reads requests from and writes responses to: a TCP stream as it is
// (the default), or one that a layer such as lib/tls wraps (HTTPS). It is the part of
// net::TcpStream's contract the server uses, with the same meaning (net/tcp_stream.hpp):
// write() takes all or nothing and refuses with would_block while the queue is full;
// on_drain says when to retry; a data handler that takes fewer bytes than offered pauses
// reading until resume(); after close() or abort() no handler runs again, and otherwise
// on_close runs once when the connection ends.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <net/tcp_stream.hpp>
#include <span>

namespace keel::http {

class Transport {
 public:
  using DataHandler = std::function<std::size_t(std::span<const uint8_t> data)>;
  using EventHandler = std::function<void()>;
  using HoldHandler = std::function<void(bool held)>;

  virtual ~Transport() = default;

  // The handlers (set once, before any input is handed out).
  virtual void on_data(DataHandler handler) = 0;
  virtual void on_drain(EventHandler handler) = 0;
  virtual void on_end(EventHandler handler) = 0;
  virtual void on_close(EventHandler handler) = 0;
  // Told true when the transport starts holding the client's input back for work of the
  // server's own (a TLS handshake waiting for its turn, decision 0107), false when it ends:
  // the client is not late meanwhile. A transport that never holds never calls it.
  virtual void on_hold(HoldHandler) {}
  // Starts handing out input (after the handlers are set).
  virtual void start() = 0;

  [[nodiscard]] virtual net::Status write(std::span<const uint8_t> data) = 0;
  // Content that outlives the connection (embedded files): a plain stream sends it by
  // reference; an encrypting one copies it as it encrypts.
  [[nodiscard]] virtual net::Status write_static(std::span<const uint8_t> data) = 0;
  virtual bool writable() const = 0;
  // How much one write_static() should carry: the connection's send buffer room.
  virtual std::size_t send_space() const = 0;
  virtual net::Endpoint remote() const = 0;

  virtual net::Status resume() = 0;
  virtual net::Status shutdown() = 0;
  virtual net::Status close() = 0;
  virtual net::Status abort() = 0;
};

// Makes the transport for a stream the server accepted (Server::listen's).
using TransportFactory = std::function<std::shared_ptr<Transport>(net::TcpStream stream)>;

// The stream as it is: plain HTTP.
std::shared_ptr<Transport> plain_transport(net::TcpStream stream);

}  // namespace keel::http
