// What the device says in front of a received frame (virtio 1.1, 5.1.6.4),
// checked before the stack believes it: the device is not trusted. The
// checks are shared with the Linux process's TAP
// (src/net/link/virtio_net_header.hpp); here, the negotiated feature bits
// say what the driver took. A frame whose header is wrong is dropped and
// counted by the driver.
#pragma once
#include <cstdint>
#include <net/packet.hpp>

#include "net_header.hpp"

namespace keel::drivers::virtio {

using ::net::virtio_net::max_received_frame;
using ::net::virtio_net::min_gso_size;
using ::net::virtio_net::ReceivedHeader;

// What the negotiated `features` let the device hand the driver: without
// GUEST_CSUM no flags (5.1.6.4: the device sets none), without GUEST_TSO4/6
// no gso_type of that kind.
inline ::net::virtio_net::Offloads received_offloads(uint64_t features) {
  return {.checksum = bool(features & net_feature::guest_csum),
          .tso4 = bool(features & net_feature::guest_tso4),
          .tso6 = bool(features & net_feature::guest_tso6)};
}

// What the device takes from the driver: CSUM, HOST_TSO4/6.
inline ::net::virtio_net::Offloads transmitted_offloads(uint64_t features) {
  return {.checksum = bool(features & net_feature::csum),
          .tso4 = bool(features & net_feature::host_tso4),
          .tso6 = bool(features & net_feature::host_tso6)};
}

// ::net::virtio_net::apply_received_header with what `features` took.
inline ReceivedHeader apply_received_header(const NetHeader& header, uint64_t features,
                                            net::Packet& frame) {
  return ::net::virtio_net::apply_received_header(header, received_offloads(features), frame);
}

}  // namespace keel::drivers::virtio
