// virtio-net (virtio 1.1, 5.1) as a net::Nic, over any Transport.
//
// Receive: every rx descriptor points into a buffer of the driver's
// PacketPool; the device writes the virtio-net header and the frame there
// and the very same buffer goes to the stack (no copy). With GUEST_TSO4/6
// and mergeable buffers (MRG_RXBUF) the host hands over coalesced TCP
// segments of up to 64 KiB across several buffers: those are gathered into
// one heap packet (docs/decisions/0093), the only frames copied. Transmit: the
// driver pushes the header into the frame's headroom and hands the device
// one descriptor: also for a TSO frame of up to 64 KiB in a heap buffer,
// contiguous in physical memory because memory is identity mapped
// (docs/decisions/0092), so no chain is needed. Both directions work in batches: rx is refilled in
// one go and each queue is notified once per batch (and only when the device asks, 2.6.7). Finished
// tx frames are reaped at every event and by a timer while any are in flight (a router's frames are
// buffers of the receiving NIC's pool: they must come back even when this NIC goes quiet); when the
// ring is full the tx interrupt is on until room comes back. If that timer finds frames in flight
// and none finished since it last ran, the device is notified again: a lost notification (seen
// under floods with EVENT_IDX) must not stop transmission for good.
//
// The interrupt only marks the NIC's os::Events event; handle_event(),
// run by the event loop, acknowledges it, drains the used rings with
// interrupts suppressed, and re-enables them only when the rings are empty.
#pragma once
#include <cstdint>
#include <memory>
#include <net/nic.hpp>
#include <net/packet.hpp>
#include <vector>

#include "net_header.hpp"
#include "transport.hpp"
#include "virtqueue.hpp"

namespace keel::drivers::virtio {

// The address a device uses for a buffer: memory is identity mapped
// (docs/decisions/0092).
inline uint64_t physical(const void* p) { return reinterpret_cast<uint64_t>(p); }

// How a virtio-net device is set up (outside Net: a default argument of it).
struct NetOptions {
  // Take coalesced TCP segments (GUEST_TSO4/6 with MRG_RXBUF); tso=off: not.
  bool receive_segmentation = true;
};

class Net final : public net::Nic {
 public:
  // What the driver counts beyond Nic::Stats: device misbehaviour included.
  struct DriverStats {
    uint64_t events = 0;  // handler runs
    uint64_t rx_kicks = 0, tx_kicks = 0;
    uint64_t rx_bad_length = 0;        // shorter than the header or longer than the buffer
    uint64_t rx_no_buffer = 0;         // refill found the pool empty
    uint64_t rx_merged = 0;            // frames over several buffers, gathered (MRG_RXBUF)
    uint64_t rx_large = 0;             // frames longer than the MTU allows (coalesced segments)
    uint64_t rx_bad_buffers = 0;       // num_buffers 0, too many, or more than the ring gave
    uint64_t rx_bad_checksum = 0;      // NEEDS_CSUM pointing outside the frame
    uint64_t rx_bad_segmentation = 0;  // a gso_type/gso_size we did not take or cannot use
    uint64_t rx_no_memory = 0;         // no heap for a merged frame
    uint64_t tx_queue_full = 0;
    uint64_t tx_full_waits = 0;  // the ring filled: the stack waited for room
    uint64_t tx_rekicks = 0;  // frames in flight, none finished for a reap period: notified again
    uint64_t tx_software_checksum = 0;
    uint64_t tx_bad_segmentation = 0;  // a segmentation_offload frame the device cannot take
    Virtqueue::Stats rx_queue, tx_queue;
  };

  using Options = NetOptions;

  // Negotiates features, sets up the queues and the interrupt, fills the
  // receive ring. nullptr (after printing why) when the device is unusable.
  static std::unique_ptr<Net> create(std::unique_ptr<Transport> transport, int number,
                                     Options options = {});
  ~Net() override;

  net::ethernet::Addr mac() const override { return mac_; }
  uint16_t mtu() const override { return mtu_; }
  Offloads offloads() const override;
  std::string name() const override;
  Stats stats() const override { return stats_; }
  void set_receive(ReceiveDelegate receive) override { receive_ = std::move(receive); }
  std::size_t transmit(std::span<net::PacketPtr> frames) override;
  std::size_t transmit_room() override;
  void set_transmit_ready(TransmitReady ready) override { transmit_ready_ = std::move(ready); }
  using net::Nic::transmit;  // the single-frame overload
  net::PacketPtr allocate_packet() override;

  DriverStats driver_stats() const;
  uint64_t features() const { return features_; }
  const Transport& transport() const { return *transport_; }

 private:
  // Where the Ethernet header lands in a receive buffer: after the stack's
  // usual headroom (replies are built in place) plus 2, so that the IPv4
  // header behind the 14-byte Ethernet header is 4-byte aligned.
  static constexpr uint32_t rx_frame_offset = net::Packet::default_headroom + 2;

  Net(std::unique_ptr<Transport> transport, int number, Options options);
  bool init();
  bool negotiate();
  void handle_event();
  // Each returns how many completions it took.
  std::size_t drain_rx(std::size_t budget);
  std::size_t reap_tx();
  void refill_rx();
  void kick_tx();
  void arm_tx_reaping();
  void on_reap_timer();
  void tell_transmit_ready();
  // Each returns how many further completions it took (a merged frame's).
  std::size_t receive_one(net::PacketPtr packet, const Virtqueue::Completion& c);
  bool gather(net::PacketPtr& frame, std::size_t more);
  net::PacketPtr take_rx_slot(uint32_t token);
  void deliver(net::PacketPtr frame, const NetHeader& header);

  std::unique_ptr<Transport> transport_;
  int number_;
  Options options_;
  int event_ = -1;
  uint64_t features_ = 0;
  uint32_t header_size_ = 0;
  net::ethernet::Addr mac_;
  uint16_t mtu_ = 1500;
  std::unique_ptr<Virtqueue> rx_, tx_;
  std::unique_ptr<net::PacketPool> pool_;
  uint16_t rx_fill_ = 0;                   // receive buffers the ring holds at most (net.cpp)
  uint32_t rx_buffer_length_ = 0;          // what each receive descriptor offers the device
  uint16_t rx_max_buffers_ = 1;            // the most buffers a frame may span (MRG_RXBUF)
  std::vector<net::PacketPtr> rx_pieces_;  // a merged frame's further buffers
  // Buffers the device holds, by token; free tokens on a stack.
  std::vector<net::PacketPtr> rx_slots_, tx_slots_;
  std::vector<uint32_t> rx_free_, tx_free_;
  ReceiveDelegate receive_;
  TransmitReady transmit_ready_;
  bool tx_waiting_ = false;  // the ring was full: tell the stack when it is not
  uint32_t reap_timer_ = 0;  // reaps finished frames when no event comes
  bool reap_armed_ = false;
  uint64_t tx_reaped_ = 0;           // frames the device finished, ever
  uint64_t tx_reaped_at_timer_ = 0;  // ... when the reap timer last ran
  bool in_handler_ = false;          // transmit() defers its kick to the end of the batch
  bool tx_kick_pending_ = false;
  uint32_t refill_timer_ = 0;  // os::Timers id while a refill retry is armed
  Stats stats_;
  DriverStats driver_;
};

}  // namespace keel::drivers::virtio
