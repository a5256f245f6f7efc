// UDP (RFC 768) for services: bind an endpoint, read datagrams through a
// handler, send from the socket.
//
//   auto socket = *stack.udp().bind(7);
//   socket.on_read([socket](const net::UdpDatagram& d) mutable {
//     socket.send_to(d.source, d.payload);    // echo
//   });
//
// A UdpSocket is a handle (copy it freely): close() ends the socket for
// every copy, and a closed handle answers Status::closed instead of
// touching freed memory. A handler may close its socket, bind the port
// again, or replace itself with on_read() while it runs. Read handlers run
// once the stack is done with the datagram's frame, before the next frame
// is taken; one that throws loses that datagram only
// (udp.handler_exceptions): docs/net/handlers.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <net/address.hpp>
#include <net/counters.hpp>
#include <net/routes.hpp>
#include <net/status.hpp>
#include <span>
#include <util/delegate.hpp>
#include <vector>

namespace net {

class Udp;

// What a read handler is given. `payload` points into the received buffer:
// valid only during the call (copy what you keep).
struct UdpDatagram {
  Endpoint source;
  Endpoint destination;  // which of our addresses (or a broadcast/multicast one) and port
  InterfaceId interface = no_interface;  // it arrived on
  std::span<const uint8_t> payload;

  const char* data() const { return reinterpret_cast<const char*>(payload.data()); }
  std::size_t size() const { return payload.size(); }
};

class UdpSocket {
 public:
  using ReadHandler = keel::delegate<void(const UdpDatagram&)>;
  using WritableHandler = keel::delegate<void()>;

  UdpSocket() = default;  // no socket: every call answers Status::closed

  bool is_open() const;
  Endpoint local() const;
  InterfaceId interface() const;

  // Datagrams for this socket go to `handler` (none: they are counted as
  // udp.drop_no_port and answered with port unreachable).
  Status on_read(ReadHandler handler);
  // After a send_to() answered would_block: runs `handler` once, when the
  // transmit queue has room again.
  Status on_writable(WritableHandler handler);
  // From this socket's port, and its address (or `source`, one of ours: a
  // reply from the address a request came to; a broadcast or multicast
  // `source` means none in particular); payloads over the path MTU are
  // fragmented. ok also when the datagram waits for ARP resolution.
  Status send_to(const Endpoint& destination, std::span<const uint8_t> payload,
                 const Address& source = {});
  Status send_to(const Endpoint& destination, const void* data, std::size_t len,
                 const Address& source = {}) {
    return send_to(destination, {static_cast<const uint8_t*>(data), len}, source);
  }
  void close();

  friend bool operator==(const UdpSocket&, const UdpSocket&) = default;

 private:
  friend class Udp;
  friend class UdpLayer;
  UdpSocket(Udp* udp, uint32_t slot, uint32_t generation)
      : udp_(udp), slot_(slot), generation_(generation) {}
  Udp* udp_ = nullptr;
  uint32_t slot_ = 0, generation_ = 0;
};

class UdpLayer;  // the receive and send paths (src/net/udp/udp_layer.hpp)

class Udp {
 public:
  // RFC 6335 §6: the dynamic (ephemeral) port range.
  static constexpr uint16_t ephemeral_first = 49152;
  static constexpr uint16_t ephemeral_last = 65535;
  static constexpr std::size_t max_payload = 65507;   // IPv4: 65535 less both headers
  static constexpr std::size_t max_payload6 = 65527;  // IPv6: the 40-byte header is not counted
  static constexpr std::size_t max_sockets = 4096;

  // Binds `local`: its address any() (every address of this host) or one of
  // ours, its port 0 for a free ephemeral one. With `interface`, the socket
  // takes only what arrives on it and sends through it (a DHCP client's).
  // in_use when the same address, port and interface are bound already.
  Result<UdpSocket> bind(const Endpoint& local, InterfaceId interface = no_interface);
  Result<UdpSocket> bind(uint16_t port) { return bind(Endpoint{ip4::Addr{}, port}); }
  bool is_bound(const Endpoint& local, InterfaceId interface = no_interface) const;
  std::size_t open_sockets() const;

  const UdpCounters& counters() const;

 private:
  friend class UdpSocket;
  friend class UdpLayer;
  friend struct StackParts;
  explicit Udp(UdpLayer& layer) : layer_(layer) {}
  UdpLayer& layer_;
};

}  // namespace net
