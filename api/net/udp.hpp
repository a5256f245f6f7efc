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

  // How the stack below sends: a UDP datagram (header + payload, in one
  // contiguous buffer) to an IPv4 destination. Set by Inet.
  using Output = keel::delegate<Status(ip4::Addr dst, const uint8_t* datagram, std::size_t len)>;
  // The source address to use and put in the checksum's pseudo-header.
  using SourceAddress = keel::delegate<ip4::Addr()>;
  // Reports a datagram for a closed port (for ICMP port unreachable).
  using Unreachable = keel::delegate<void(PacketPtr ip_packet)>;

  explicit Udp(UdpCounters& counters) : counters_(counters) {}

  // Binds `port` (an existing binding is returned as is). port 0 picks a
  // free ephemeral port.
  UdpSocket& bind(uint16_t port = 0);
  bool is_bound(uint16_t port) const { return sockets_.count(port) != 0; }
  void close(uint16_t port) { sockets_.erase(port); }

  // Sends a datagram. sport 0: from a fresh ephemeral port (replies to it
  // are not delivered unless it is bound). Payloads over the path MTU are
  // fragmented by IPv4.
  Status sendto(ip4::Addr dst, uint16_t dport, const void* data, std::size_t len,
                uint16_t sport = 0);

  // From IPv4: `packet` data() is the UDP header; the IP header is just in
  // front of it (for ICMP errors).
  void receive(ip4::Addr src, ip4::Addr dst, PacketPtr packet, uint32_t ip_header_len);

  void set_output(Output output) { output_ = std::move(output); }
  void set_source(SourceAddress source) { source_ = std::move(source); }
  void set_unreachable(Unreachable unreachable) { unreachable_ = std::move(unreachable); }
  // When the NIC completes checksums, the stack may leave them to it. Not
  // used yet for UDP: UDP sends build one contiguous datagram.
  void set_verify_checksums(bool verify) { verify_checksums_ = verify; }

 private:
  uint16_t next_ephemeral();

  UdpCounters& counters_;
  std::map<uint16_t, std::unique_ptr<UdpSocket>> sockets_;
  Output output_;
  SourceAddress source_;
  Unreachable unreachable_;
  uint16_t ephemeral_next_ = ephemeral_first;
  bool verify_checksums_ = true;
  std::unique_ptr<uint8_t[]> scratch_;  // one datagram being built, reused
};

}  // namespace net
