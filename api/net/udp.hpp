// UDP (RFC 768) for services: bind a port and read datagrams through a
// callback, send with sendto.
//
//   stack.udp().bind(7).on_read([&](net::ip4::Addr src, uint16_t sport,
//                                   const char* data, size_t len) {
//     stack.udp().sendto(src, sport, data, len, 7);
//   });
//
// on_read runs from the event loop with `data` pointing into the received
// buffer: valid only during the call (copy what you keep).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include <net/counters.hpp>
#include <net/ip4_addr.hpp>
#include <net/packet.hpp>
#include <net/status.hpp>
#include <util/delegate.hpp>

namespace net {

class Udp;

class UdpSocket {
 public:
  using ReadHandler =
      keel::delegate<void(ip4::Addr src, uint16_t sport, const char* data, std::size_t len)>;

  UdpSocket(Udp& udp, uint16_t port) : udp_(udp), port_(port) {}
  UdpSocket& on_read(ReadHandler handler) {
    handler_ = std::move(handler);
    return *this;
  }
  // Sends from this socket's port.
  Status sendto(ip4::Addr dst, uint16_t dport, const void* data, std::size_t len);
  uint16_t port() const { return port_; }
  // Unbinds; the socket object is destroyed, references to it dangle.
  void close();

 private:
  friend class Udp;
  Udp& udp_;
  uint16_t port_;
  ReadHandler handler_;
};

class Udp {
 public:
  // RFC 6335 §6: the dynamic (ephemeral) port range.
  static constexpr uint16_t ephemeral_first = 49152;
  static constexpr uint16_t ephemeral_last = 65535;
  // 65535 - 20 (IPv4 header) - 8 (UDP header).
  static constexpr std::size_t max_payload = 65507;

  // How the stack below sends: a UDP datagram (data() at the UDP header)
  // to an IPv4 destination; IPv4 fragments it when it exceeds the MTU.
  using Output = keel::delegate<Status(ip4::Addr dst, PacketPtr datagram)>;
  // A buffer with headroom for the IPv4 and Ethernet headers.
  using Allocate = keel::delegate<PacketPtr()>;
  // The source address to use and put in the checksum's pseudo-header.
  using SourceAddress = keel::delegate<ip4::Addr()>;
  // A datagram for a closed port (for ICMP port unreachable); the IPv4
  // header is the ip_header_len bytes in front of data().
  using Unreachable = keel::delegate<void(PacketPtr datagram, uint32_t ip_header_len)>;

  explicit Udp(UdpCounters& counters) : counters_(counters) {}

  // Binds `port` (an existing binding is returned as is). port 0 picks a
  // free ephemeral port.
  UdpSocket& bind(uint16_t port = 0);
  bool is_bound(uint16_t port) const { return sockets_.count(port) != 0; }
  void close(uint16_t port);

  // Sends a datagram. sport 0: from a fresh ephemeral port (replies to it
  // are not delivered unless it is bound). Payloads over the path MTU are
  // fragmented by IPv4.
  Status sendto(ip4::Addr dst, uint16_t dport, const void* data, std::size_t len,
                uint16_t sport = 0);

  // From IPv4: `packet` data() is the UDP header; the IP header is the
  // ip_header_len bytes in front of it (quoted in ICMP errors).
  void receive(ip4::Addr src, ip4::Addr dst, PacketPtr packet, uint32_t ip_header_len,
               bool to_broadcast = false);

  void set_output(Output output) { output_ = std::move(output); }
  void set_allocate(Allocate allocate) { allocate_ = std::move(allocate); }
  void set_source(SourceAddress source) { source_ = std::move(source); }
  void set_unreachable(Unreachable unreachable) { unreachable_ = std::move(unreachable); }
  // The NIC completes transmit checksums (Packet::checksum_partial).
  void set_checksum_offload(bool offload) { checksum_offload_ = offload; }

 private:
  uint16_t next_ephemeral();

  UdpCounters& counters_;
  std::map<uint16_t, std::unique_ptr<UdpSocket>> sockets_;
  Output output_;
  Allocate allocate_;
  SourceAddress source_;
  Unreachable unreachable_;
  uint16_t ephemeral_next_ = ephemeral_first;
  uint16_t dispatching_ = 0;  // port whose handler is running
  bool close_pending_ = false;
  bool checksum_offload_ = false;
};

}  // namespace net
