// IPv4 (RFC 791, host requirements RFC 1122 §3.2.1): validates received
// headers, reassembles fragments, demultiplexes to ICMP and UDP; routes
// (on-link or via the gateway), frames and fragments outgoing datagrams.
#pragma once
#include <cstdint>

#include <kernel/timers.hpp>
#include <net/config.hpp>
#include <net/counters.hpp>
#include <net/ip4_addr.hpp>
#include <net/packet.hpp>
#include <net/status.hpp>
#include <util/delegate.hpp>

#include "ip4_header.hpp"
#include "ip4_reassembly.hpp"

namespace keel::net {

class Ip4 {
 public:
  using Addr = ::net::ip4::Addr;
  using Upper = keel::delegate<void(const ip4::Header&, ::net::PacketPtr)>;
  using Allocate = keel::delegate<::net::PacketPtr()>;
  using LinkOutput = keel::delegate<void(::net::PacketPtr, Addr next_hop)>;
  // A datagram for a protocol nobody handles (for ICMP protocol
  // unreachable); data() at its IPv4 header.
  using Unreachable = keel::delegate<void(const ip4::Header&, ::net::PacketPtr datagram)>;

  Ip4(::net::Ip4Counters& counters, uint16_t mtu, const ::net::ReassemblyConfig& reassembly = {});
  ~Ip4();

  // data() at the IPv4 header.
  void receive(::net::PacketPtr packet);
  // Sends `payload` (data() at the transport header) to `dst`, fragmenting
  // when it exceeds the MTU. The packet may be any owner's buffer (a
  // reassembled datagram, a large UDP datagram): oversize ones are copied
  // into fragments and released before send() returns.
  ::net::Status send(Addr dst, uint8_t protocol, ::net::PacketPtr payload);

  void set_address(Addr address, Addr netmask, Addr gateway);
  Addr address() const { return address_; }
  bool is_configured() const { return !address_.is_any(); }
  uint16_t mtu() const { return mtu_; }

  void set_icmp(Upper upper) { icmp_ = std::move(upper); }
  void set_udp(Upper upper) { udp_ = std::move(upper); }
  void set_allocate(Allocate allocate) { allocate_ = std::move(allocate); }
  void set_link_output(LinkOutput output) { link_ = std::move(output); }
  void set_unreachable(Unreachable unreachable) { unreachable_ = std::move(unreachable); }
  Reassembly& reassembly() { return reassembly_; }

 private:
  bool is_local_broadcast(Addr dst) const;
  void write_header(uint8_t* h, uint32_t total, uint16_t id, uint16_t flags, uint8_t protocol,
                    Addr dst);
  void arm_reassembly_timer();

  ::net::Ip4Counters& counters_;
  uint16_t mtu_;
  Addr address_, netmask_, gateway_;
  uint16_t next_id_ = 1;
  Reassembly reassembly_;
  os::Timers::id_t reassembly_timer_ = os::Timers::invalid_id;
  Upper icmp_, udp_;
  Allocate allocate_;
  LinkOutput link_;
  Unreachable unreachable_;
};

}  // namespace keel::net
