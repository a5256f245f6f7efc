#include "ethernet.hpp"

#include "bytes.hpp"

namespace keel::net {

Ethernet::Ethernet(::net::Nic& nic, ::net::EthernetCounters& counters)
    : nic_(nic), counters_(counters), mac_(nic.mac()) {}

void Ethernet::receive(::net::PacketPtr frame) {
  ++counters_.rx;
  if (frame->size() < ethernet::header_size) {
    ++counters_.drop_truncated;
    return;
  }
  const uint8_t* h = frame->data();
  Addr dst = Addr::from(h);
  // Unicast to us and broadcast; no multicast groups are joined (no IGMP).
  if (dst != mac_ && !dst.is_broadcast()) {
    ++counters_.drop_not_for_us;
    return;
  }
  uint16_t type = load16(h + 12);
  frame->pull(ethernet::header_size);
  if (type == ethernet::type_ip4 && ip4_) {
    ip4_(std::move(frame));
  } else if (type == ethernet::type_arp && arp_) {
    arp_(std::move(frame));
  } else {
    ++counters_.drop_unknown_type;
  }
}

void Ethernet::transmit(::net::PacketPtr payload, Addr dst, uint16_t type) {
  uint8_t* h = payload->push(ethernet::header_size);
  if (!h) {
    ++counters_.drop_no_buffer;
    return;
  }
  dst.write(h);
  mac_.write(h + 6);
  store16(h + 12, type);
  ++counters_.tx;
  nic_.transmit(std::move(payload));
}

}  // namespace keel::net
