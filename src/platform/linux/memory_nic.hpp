// An in-memory NIC for tests and fuzzing: a test injects frames (as if
// received from the wire) and reads what the stack transmitted; two can be
// joined back to back and pumped.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <net/nic.hpp>
#include <vector>

namespace net {

class MemoryNic final : public Nic {
 public:
  using Frame = std::vector<uint8_t>;

  explicit MemoryNic(ethernet::Addr mac, uint16_t mtu = 1500, std::size_t buffers = 512);

  ethernet::Addr mac() const override { return mac_; }
  uint16_t mtu() const override { return mtu_; }
  Offloads offloads() const override { return offloads_; }
  std::string name() const override { return "memory"; }
  Stats stats() const override { return stats_; }
  void set_receive(ReceiveDelegate receive) override { receive_ = std::move(receive); }
  std::size_t transmit(std::span<PacketPtr> frames) override;
  std::size_t transmit_room() override { return room_; }
  void set_transmit_ready(TransmitReady ready) override { ready_ = std::move(ready); }
  PacketPtr allocate_packet() override { return pool_.allocate(); }

  // Test side. Delivers a frame to the stack now (copied into a pool
  // buffer, as a device would have written it). False if the pool is empty
  // or the frame too big for a buffer.
  bool inject(const uint8_t* data, std::size_t len, uint32_t packet_flags = 0);
  bool inject(const Frame& frame) { return inject(frame.data(), frame.size()); }
  // A TCP segment the host coalesced, as virtio-net hands it over with
  // GUEST_TSO4/6 (decision 0093): in a heap buffer of its own, flagged
  // segmentation_offload with gso_size, its checksum partial from csum_start
  // (the TCP header) and verified.
  bool inject_coalesced(const Frame& frame, uint16_t gso_size, uint16_t csum_start);
  // What follows a delivered frame: a test's stand-in for the event loop's
  // next step (ManualClock::advance(0ns), where the stack's handlers run:
  // docs/net/handlers.md). Unset: nothing, the caller steps when it likes.
  void set_after_receive(std::function<void()> step) { after_receive_ = std::move(step); }
  // Frames the stack sent, oldest first (when not connected to a peer).
  std::deque<Frame> transmitted;
  Frame pop() {
    Frame f = std::move(transmitted.front());
    transmitted.pop_front();
    return f;
  }
  void set_offloads(Offloads o) { offloads_ = o; }
  // Back-pressure, as a ring with `room` free slots that each frame sent
  // takes; free_transmit_room() gives some back and says so, as a driver
  // reaping completions would.
  void limit_transmit_room(std::size_t room) { room_ = room; }
  void free_transmit_room(std::size_t n) {
    if (room_ != unlimited_room) room_ += n;
    if (ready_) ready_();
  }
  // Offload fields of the last frame transmitted.
  uint32_t last_flags = 0;
  // TSO (offloads().tso4/tso6): frames flagged segmentation_offload are cut
  // (segment_tcp) as a device would; how many came, and the largest frame.
  std::size_t segmented_frames = 0, largest_frame = 0;
  uint16_t last_csum_start = 0, last_csum_offset = 0;
  PacketPool& pool() { return pool_; }

  // Back to back: frames sent by one are queued for the other; pump()
  // delivers them until both are quiet (or `limit` frames).
  void connect(MemoryNic& peer);
  static std::size_t pump(MemoryNic& a, MemoryNic& b, std::size_t limit = 100000);

 private:
  ethernet::Addr mac_;
  uint16_t mtu_;
  Offloads offloads_;
  Stats stats_;
  PacketPool pool_;
  ReceiveDelegate receive_;
  TransmitReady ready_;
  std::size_t room_ = unlimited_room;
  MemoryNic* peer_ = nullptr;
  std::function<void()> after_receive_;
};

}  // namespace net
