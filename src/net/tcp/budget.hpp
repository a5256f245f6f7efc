// The memory all connections' send and receive buffers may hold together
// (Tcp::Limits::memory). Buffers take from it before they allocate and give
// back when they free; a refusal is a counted drop or a short write, never
// an allocation past the bound.
#pragma once
#include <cstddef>

namespace net::tcp {

class Budget {
 public:
  explicit Budget(std::size_t limit = 0) : limit_(limit) {}
  bool take(std::size_t bytes) {
    if (bytes > limit_ - used_ || used_ > limit_) return false;
    used_ += bytes;
    return true;
  }
  void give(std::size_t bytes) { used_ = bytes > used_ ? 0 : used_ - bytes; }
  std::size_t used() const { return used_; }
  std::size_t limit() const { return limit_; }
  std::size_t available() const { return used_ >= limit_ ? 0 : limit_ - used_; }
  void set_limit(std::size_t limit) { limit_ = limit; }
  // More than half given out: buffers that emptied are freed, not kept.
  bool under_pressure() const { return used_ > limit_ / 2; }

 private:
  std::size_t limit_;
  std::size_t used_ = 0;
};

}  // namespace net::tcp
