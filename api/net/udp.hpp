// UDP (RFC 768) for services: bind an endpoint, read datagrams through a
// handler, send from the socket.
//
//   auto socket = *stack.udp().bind(7);
//   socket.on_read([socket](const net::UdpDatagram& d) mutable {
//     socket.send_to(d.source, d.payload);    // echo
//   });
//
// ICMP and ICMPv6 errors about what a socket sent reach it through
// on_error(), one UdpError for both families:
//
//   socket.on_error([](const net::UdpError& e) {
//     std::printf("%s: %s\n", e.destination.to_string().c_str(), net::to_string(e.kind));
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

// What an ICMP or ICMPv6 error said about a datagram we sent (RFC 1122
// §4.1.3.3, RFC 4443 §2.4 (d)), the same for both families.
enum class UdpErrorKind : uint8_t {
  port_unreachable,   // nobody reads that port (ICMP 3/2, 3/3; ICMPv6 1/4)
  unreachable,        // no route, net, host or address unreachable, beyond scope
  prohibited,         // administratively prohibited (ICMP 3/9, 3/10, 3/13; ICMPv6 1/1, 1/5, 1/6)
  packet_too_big,     // over the path MTU (ICMP 3/4, ICMPv6 2): `mtu` says what fits
  time_exceeded,      // the hop limit ran out, or the peer gave up reassembling it
  parameter_problem,  // ICMPv6 4: the peer could not read a header
};
constexpr const char* to_string(UdpErrorKind k) {
  switch (k) {
    case UdpErrorKind::port_unreachable:
      return "port unreachable";
    case UdpErrorKind::unreachable:
      return "unreachable";
    case UdpErrorKind::prohibited:
      return "prohibited";
    case UdpErrorKind::packet_too_big:
      return "packet too big";
    case UdpErrorKind::time_exceeded:
      return "time exceeded";
    case UdpErrorKind::parameter_problem:
      return "parameter problem";
  }
  return "?";
}

// An error handler is given: the datagram's endpoints as it left (the
// family of `destination` says whose error it is), who sent the error (a
// router, or the destination), and its type and code as they came.
struct UdpError {
  UdpErrorKind kind = UdpErrorKind::unreachable;
  Endpoint source;       // ours: the socket's port, the address it left from
  Endpoint destination;  // where it was going
  Address reporter;      // the error's source address
  uint32_t mtu = 0;      // packet_too_big: the path MTU now (IPv6 fragments later ones to fit)
  uint8_t type = 0, code = 0;
};

class UdpSocket {
 public:
  using ReadHandler = keel::delegate<void(const UdpDatagram&)>;
  using ErrorHandler = keel::delegate<void(const UdpError&)>;
  using WritableHandler = keel::delegate<void()>;

  UdpSocket() = default;  // no socket: every call answers Status::closed

  bool is_open() const;
  Endpoint local() const;
  InterfaceId interface() const;

  // Datagrams for this socket go to `handler` (none: they are counted as
  // udp.drop_no_port and answered with port unreachable).
  Status on_read(ReadHandler handler);
  // ICMP and ICMPv6 errors quoting a datagram from this socket's port and
  // address go to `handler`, at the moment read handlers run (none: they
  // are counted as udp.rx_errors_ignored). Only the sender's side of the
  // quote is checked (RFC 5927 §4.1: our address and port): a socket that
  // sends to many peers may hear errors forged about any of them.
  Status on_error(ErrorHandler handler);
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
