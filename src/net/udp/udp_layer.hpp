// UDP (RFC 768) in the host stack: the socket table shared by every
// interface, the receive path (checks, demultiplexing by destination
// address, port and interface) and the send path. Services use it through
// net::Udp and net::UdpSocket handles (api/net/udp.hpp).
//
// Sockets live in slots with a generation number: a handle names a slot
// and the generation it was opened with, so a handle to a closed socket
// (even one whose slot was reused) finds nothing. A datagram waits until
// the stack is done with its frame, when read handlers run (run_handlers);
// a read handler is moved out of its slot while it runs, so it may close
// its socket, bind the port again or install another handler without destroying itself; afterwards
// it goes back only if the slot still holds the same socket and nobody
// installed a new handler.
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/counters.hpp>
#include <net/packet.hpp>
#include <net/udp.hpp>
#include <vector>

#include "net/ip4/ip4.hpp"
#include "net/ip6/ip6.hpp"
#include "net/wire/udp.hpp"
#include "util/flat_map.hpp"

namespace net {

struct StackParts;
struct Icmp4ErrorReport;
struct Icmp6ErrorReport;

class UdpLayer {
 public:
  explicit UdpLayer(StackParts& parts);

  // From IPv4 or IPv6 (udp6.cpp): data() at the UDP header.
  void receive(const Ip4Received& info, PacketPtr packet);
  void receive(const Ip6Received& info, PacketPtr packet);
  // An ICMP or ICMPv6 error quoting a datagram of ours (the ICMP layer
  // checked the quote's source is our address; udp_errors.cpp): held for
  // the error handler of the socket that sent it.
  void icmp_error(const Icmp4ErrorReport& report);
  void icmp_error(const Icmp6ErrorReport& report);
  // An interface's transmit queue has room again: the would_block senders'
  // writable handlers are due (run by run_handlers, never from inside the
  // send that drained the queue).
  void writable();
  // The read handlers of the datagrams received since the last call, then
  // the writable handlers due (StackParts::run_handlers).
  void run_handlers();
  bool handlers_pending() const { return !pending_.empty() || !errors_.empty() || writable_due_; }
  // Datagrams held for their handlers at most (a bound on the packet
  // buffers they keep; the driver takes up to 128 frames a pass).
  static constexpr std::size_t max_pending = 256;

  // The API behind Udp and UdpSocket.
  Result<UdpSocket> bind(Udp& udp, const Endpoint& local, InterfaceId interface);
  bool is_bound(const Endpoint& local, InterfaceId interface) const;
  std::size_t open_sockets() const { return open_; }
  const UdpCounters& counters() const { return counters_; }
  bool is_open(uint32_t slot, uint32_t generation) const;
  Endpoint local(uint32_t slot, uint32_t generation) const;
  InterfaceId interface(uint32_t slot, uint32_t generation) const;
  Status on_read(uint32_t slot, uint32_t generation, UdpSocket::ReadHandler handler);
  Status on_writable(uint32_t slot, uint32_t generation, UdpSocket::WritableHandler handler);
  Status on_error(uint32_t slot, uint32_t generation, UdpSocket::ErrorHandler handler);
  Status send(uint32_t slot, uint32_t generation, const Endpoint& destination,
              std::span<const uint8_t> payload, const Address& source);
  void close(uint32_t slot, uint32_t generation);

 private:
  static constexpr uint32_t none = UINT32_MAX;
  struct Slot {
    uint32_t generation = 0;
    bool open = false;
    Address address;  // any() of either family: every address of this host, both families
    uint16_t port = 0;
    InterfaceId interface = no_interface;
    UdpSocket::ReadHandler read;
    uint32_t read_version = 0;  // bumped by on_read(): a running handler was replaced
    UdpSocket::WritableHandler writable;
    UdpSocket::ErrorHandler error;
    bool wants_writable = false;   // a send answered would_block
    bool writable_due = false;     // and the queue has room since
    uint32_t next_on_port = none;  // the other sockets bound to the same port
  };
  struct PortHash {
    std::size_t operator()(uint16_t port) const { return port * 0x9e3779b1u; }
  };

  Slot* find(uint32_t slot, uint32_t generation);
  const Slot* find(uint32_t slot, uint32_t generation) const;
  uint32_t lookup(const Address& destination, uint16_t port, InterfaceId in) const;
  // The socket a datagram from `source` left: bound to its port and to its
  // address or any() (none: UINT32_MAX).
  uint32_t sender(const Endpoint& source) const;
  // udp_errors.cpp: holds `error` for its sender's error handler.
  void queue_error(const UdpError& error);
  void run_error_handlers();
  // Holds a checked datagram for its socket's handler; false: no socket
  // reads that port (counted; the caller answers port unreachable).
  bool queue(const Endpoint& source, const Endpoint& destination, InterfaceId in,
             std::span<const uint8_t> payload, PacketPtr& packet);
  // A received datagram of either family checked against its IP header's addresses (drops
  // counted) and queued; false as queue(): no socket took it.
  template <class Received>
  bool check_and_queue(const Received& info, PacketPtr& packet);
  // udp6.cpp
  Status send6(Slot& s, const Endpoint& destination, std::span<const uint8_t> payload,
               const Address& from);
  uint16_t free_ephemeral_port();
  void unlink_port(uint32_t slot);

  StackParts& parts_;
  UdpCounters& counters_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::size_t open_ = 0;
  // Port -> the first slot bound to it. Ports are not secret: the map is
  // small and bounded by the socket count.
  keel::util::FlatMap<uint16_t, uint32_t, PortHash> ports_;
  uint16_t ephemeral_next_;
  struct Pending {
    uint32_t slot, generation;
    UdpDatagram datagram;  // its payload lies in `packet`
    PacketPtr packet;
  };
  std::vector<Pending> pending_, delivering_;
  struct PendingError {
    uint32_t slot, generation;
    UdpError error;
  };
  std::vector<PendingError> errors_, errors_delivering_;
  bool writable_due_ = false;  // some slot's writable_due is set
  bool running_ = false;

  void run_writable_handlers();
};

template <class Received>
bool UdpLayer::check_and_queue(const Received& info, PacketPtr& packet) {
  ++counters_.rx;
  const auto& ip = info.header;
  wire::UdpView<uint8_t> v(packet->data(), packet->size());
  bool verified = packet->flags & Packet::checksum_verified;
  switch (v.check(ip.src, ip.dst, !verified)) {
    case wire::UdpError::none:
      break;
    case wire::UdpError::truncated:
      ++counters_.drop_truncated;
      return true;
    case wire::UdpError::bad_length:
      ++counters_.drop_bad_length;
      return true;
    case wire::UdpError::bad_checksum:
      ++counters_.drop_bad_checksum;
      return true;
  }
  packet->trim(v.length());
  return queue(Endpoint{ip.src, v.src_port()}, Endpoint{ip.dst, v.dst_port()}, info.in,
               std::span<const uint8_t>(v.payload(), v.payload_len()), packet);
}

}  // namespace net
