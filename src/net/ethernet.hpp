// Ethernet II framing (IEEE 802.3 / RFC 894): demultiplexes received frames
// by EtherType and frames outgoing packets.
#pragma once
#include <cstdint>

#include <net/counters.hpp>
#include <net/ethernet_addr.hpp>
#include <net/nic.hpp>
#include <net/packet.hpp>
#include <util/delegate.hpp>

namespace keel::net {

namespace ethernet {
inline constexpr uint32_t header_size = 14;
inline constexpr uint16_t type_ip4 = 0x0800;
inline constexpr uint16_t type_arp = 0x0806;
}  // namespace ethernet

class Ethernet {
 public:
  using Addr = ::net::ethernet::Addr;
  using Upper = keel::delegate<void(::net::PacketPtr)>;

  Ethernet(::net::Nic& nic, ::net::EthernetCounters& counters);

  // From the NIC: data() at the destination MAC.
  void receive(::net::PacketPtr frame);
  // Prepends the header and hands the frame to the NIC.
  void transmit(::net::PacketPtr payload, Addr dst, uint16_t type);

  void set_ip4(Upper upper) { ip4_ = std::move(upper); }
  void set_arp(Upper upper) { arp_ = std::move(upper); }
  Addr mac() const { return mac_; }

 private:
  ::net::Nic& nic_;
  ::net::EthernetCounters& counters_;
  Addr mac_;
  Upper ip4_, arp_;
};

}  // namespace keel::net
