// A bounded FIFO of frames waiting for room in the NIC's transmit ring.
#pragma once
#include <cstddef>
#include <memory>
#include <net/packet.hpp>

namespace net {

class FrameQueue {
 public:
  explicit FrameQueue(std::size_t capacity)
      : frames_(std::make_unique<PacketPtr[]>(capacity)), capacity_(capacity) {}

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == capacity_; }

  // False (the frame stays with the caller) when full.
  bool push(PacketPtr& frame) {
    if (full()) return false;
    frames_[(head_ + size_) % capacity_] = std::move(frame);
    ++size_;
    return true;
  }
  PacketPtr pop() {
    PacketPtr frame = std::move(frames_[head_]);
    head_ = (head_ + 1) % capacity_;
    --size_;
    return frame;
  }

 private:
  std::unique_ptr<PacketPtr[]> frames_;
  std::size_t capacity_;
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace net
