// The boundary between a network device driver and the stack. A driver
// (virtio-net on kvm; TAP or the in-memory link on linux) implements Nic; the
// stack (net::Inet) built on it sets the receive delegate and calls transmit.
//
// Receive: the driver's event handler (run by the event loop, never in
// interrupt context) hands each received frame to the delegate as a
// PacketPtr whose data() starts at the Ethernet header. The stack now owns
// the buffer; when it is done the buffer returns to the driver's pool by
// itself (see packet.hpp). No copy. If the delegate is unset, the driver
// drops the frame. A driver should keep a few buffers in reserve so that
// the stack holding some (queued for ARP, turned around as replies) does not
// starve its receive ring; PacketPool::allocate() returning nullptr is the
// signal to refill later.
//
// Transmit: the stack hands complete Ethernet frames (data() at the
// destination MAC, at least Packet::nic_headroom bytes of headroom left for a
// device header). The driver owns them from then on: it keeps them until the
// device is done and then drops them (back to their owner), or drops them at
// once when its queue is full (counted in its own statistics).
//
// Back-pressure: transmit_room() says how many frames transmit() takes now;
// the stack holds the rest in a queue of its own and waits for the ready
// handler, which the driver runs once room appears after transmit_room()
// reached 0. The driver reaps finished frames by itself (an interrupt or a
// timer), not only when the stack sends more: a router's frames in another
// NIC's ring are buffers of the receiving NIC's pool, which must come back.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <net/ethernet_addr.hpp>
#include <net/packet.hpp>
#include <span>
#include <string>
#include <util/delegate.hpp>

namespace net {

class Nic {
 public:
  using ReceiveDelegate = keel::delegate<void(PacketPtr)>;
  using TransmitReady = keel::delegate<void()>;
  static constexpr std::size_t unlimited_room = SIZE_MAX;

  // What the device does for the stack (virtio: VIRTIO_NET_F_CSUM and
  // VIRTIO_NET_F_GUEST_CSUM, HOST_TSO4/6).
  struct Offloads {
    // The stack may send packets flagged Packet::checksum_partial (UDP/TCP).
    bool tx_checksum = false;
    // Received packets may carry Packet::checksum_verified.
    bool rx_checksum = false;
    // The stack may send TCP segments over IPv4 (tso4) or IPv6 (tso6) of up
    // to 64 KiB flagged Packet::segmentation_offload (VIRTIO_NET_F_HOST_TSO4/6).
    bool tso4 = false;
    bool tso6 = false;
    // Received TCP segments may be longer than the MTU: the host coalesced
    // them (VIRTIO_NET_F_GUEST_TSO4/6). They come flagged
    // Packet::segmentation_offload with gso_size, so a router can pass them
    // on to a NIC with tso4/tso6 or have them cut (docs/decisions/0093).
    bool rx_segmentation = false;
  };

  // Per-driver statistics, for the service and for tests.
  struct Stats {
    uint64_t rx_packets = 0, rx_bytes = 0, rx_dropped = 0;
    uint64_t tx_packets = 0, tx_bytes = 0, tx_dropped = 0;
  };

  virtual ~Nic() = default;

  virtual ethernet::Addr mac() const = 0;
  // Largest IP packet (Ethernet payload) the link carries: 1500 usually.
  virtual uint16_t mtu() const = 0;
  virtual Offloads offloads() const { return {}; }
  // Short human name for logs: "virtio-net0", "tap:keel0", "memory0".
  virtual std::string name() const = 0;
  virtual Stats stats() const { return {}; }

  // Frames received from now on go to `receive`.
  virtual void set_receive(ReceiveDelegate receive) = 0;

  // Sends frames in one batch (one device notification). Takes every packet
  // (each PacketPtr is left empty); returns how many were queued, the rest
  // were dropped for lack of room.
  virtual std::size_t transmit(std::span<PacketPtr> frames) = 0;
  std::size_t transmit(PacketPtr frame) { return transmit(std::span<PacketPtr>(&frame, 1)); }

  // Frames transmit() takes now (unlimited_room: no ring to fill). It may
  // reap finished frames first, so it is not const.
  virtual std::size_t transmit_room() { return unlimited_room; }
  // Runs `ready` when room appears after transmit_room() reached 0.
  virtual void set_transmit_ready(TransmitReady ready) { (void)ready; }

  // A buffer for a frame to transmit, from the driver's own pool (so that it
  // lives in memory the device can reach). nullptr when none is free.
  virtual PacketPtr allocate_packet() = 0;
};

}  // namespace net
