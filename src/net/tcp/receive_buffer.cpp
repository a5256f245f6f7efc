#include "receive_buffer.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "seq.hpp"

namespace net::tcp {

void ReceiveBuffer::start(uint32_t next) {
  consumed_ = delivered_ = next_ = next;
  head_ = 0;
  ranges_.clear();
  recent_count_ = 0;
}

uint32_t ReceiveBuffer::highest() const { return ranges_.empty() ? next_ : ranges_.back().right; }

bool ReceiveBuffer::reserve(uint32_t bytes, uint32_t exactly, Budget& budget) {
  if (bytes <= capacity_) return true;
  if (delivered_ != consumed_) return false;  // the service holds spans into the ring
  uint32_t floor = budget.under_pressure() ? min_ring_under_pressure : min_ring;
  uint32_t grown = exactly >= bytes ? exactly : std::max<uint32_t>(std::bit_ceil(bytes), floor);
  if (!budget.take(grown - capacity_)) return false;
  std::unique_ptr<uint8_t[]> ring(new (std::nothrow) uint8_t[grown]);
  if (!ring) {
    budget.give(grown - capacity_);
    return false;
  }
  // Everything from the first unconsumed byte to the highest held moves to
  // the start of the new ring (holes between ranges too: they are unread).
  uint32_t live = highest() - consumed_;
  if (ring_ && live > 0) {
    uint32_t first = std::min(live, capacity_ - head_);
    std::memcpy(ring.get(), ring_.get() + head_, first);
    std::memcpy(ring.get() + first, ring_.get(), live - first);
  }
  ring_ = std::move(ring);
  capacity_ = grown;
  head_ = 0;
  budget_ = &budget;
  return true;
}

uint32_t ReceiveBuffer::wrap(uint32_t index) const {
  return index >= capacity_ ? index - capacity_ : index;
}

void ReceiveBuffer::write(uint32_t seq, std::span<const uint8_t> data) {
  uint32_t at = wrap(head_ + (seq - consumed_));
  auto len = uint32_t(data.size());
  uint32_t first = std::min(len, capacity_ - at);
  std::memcpy(ring_.get() + at, data.data(), first);
  std::memcpy(ring_.get(), data.data() + first, len - first);
}

void ReceiveBuffer::add_range(uint32_t left, uint32_t right) {
  // Merge with every range it overlaps or touches, keep the list sorted.
  auto it = ranges_.begin();
  while (it != ranges_.end() && seq_lt(it->right, left)) ++it;
  auto first = it;
  while (it != ranges_.end() && seq_le(it->left, right)) {
    left = seq_min(left, it->left);
    right = seq_max(right, it->right);
    ++it;
  }
  it = ranges_.erase(first, it);
  ranges_.insert(it, Range{left, right});
}

void ReceiveBuffer::remember(uint32_t seq) {
  uint32_t keep = std::min<uint32_t>(recent_count_, uint32_t(recent_.size()) - 1);
  for (uint32_t i = keep; i > 0; --i) recent_[i] = recent_[i - 1];
  recent_[0] = seq;
  recent_count_ = keep + 1;
}

ReceiveBuffer::Stored ReceiveBuffer::store(uint32_t seq, std::span<const uint8_t> data,
                                           uint32_t limit, Budget& budget, uint32_t at_least) {
  // Trim what is already in order, and what lies past the limit.
  if (seq_lt(seq, next_)) {
    uint32_t old = next_ - seq;
    if (old >= data.size()) return Stored::ok;
    data = data.subspan(old);
    seq = next_;
  }
  uint32_t end_limit = consumed_ + limit;
  if (seq_ge(seq, end_limit)) return Stored::ok;
  if (seq_gt(seq + uint32_t(data.size()), end_limit)) data = data.first(end_limit - seq);
  if (data.empty()) return Stored::ok;
  auto end = seq + uint32_t(data.size());
  if (seq != next_) {
    // A new range that touches none of the others needs a free entry.
    bool joins = std::any_of(ranges_.begin(), ranges_.end(), [&](const Range& r) {
      return seq_le(r.left, end) && seq_le(seq, r.right);
    });
    if (!joins && ranges_.size() >= max_ranges) return Stored::too_many_ranges;
  }
  if (!reserve(end - consumed_, at_least, budget)) return Stored::no_memory;
  write(seq, data);
  if (seq != next_) {
    add_range(seq, end);
    remember(seq);
    return Stored::ok;
  }
  next_ = end;
  while (!ranges_.empty() && seq_le(ranges_.front().left, next_)) {
    next_ = seq_max(next_, ranges_.front().right);
    ranges_.erase(ranges_.begin());
  }
  return Stored::ok;
}

std::span<const uint8_t> ReceiveBuffer::undelivered_span() const {
  uint32_t n = next_ - delivered_;
  if (n == 0) return {};
  uint32_t at = wrap(head_ + (delivered_ - consumed_));
  return {ring_.get() + at, std::min(n, capacity_ - at)};
}

void ReceiveBuffer::consume(uint32_t n) {
  n = std::min(n, delivered_ - consumed_);
  if (n == 0) return;
  head_ = wrap(head_ + n);
  consumed_ += n;
}

void ReceiveBuffer::sack_blocks(wire::TcpOptions& options, uint32_t max_blocks) const {
  auto range_of = [this](uint32_t seq) -> const Range* {
    for (const Range& r : ranges_)
      if (seq_in(seq, r.left, r.right)) return &r;
    return nullptr;
  };
  auto listed = [&options](const Range& r) {
    for (uint32_t i = 0; i < options.sack_count; ++i)
      if (options.sack[i].left == r.left) return true;
    return false;
  };
  for (uint32_t i = 0; i < recent_count_ && options.sack_count < max_blocks; ++i) {
    const Range* r = range_of(recent_[i]);
    if (r && !listed(*r)) options.add_sack({r->left, r->right});
  }
  for (const Range& r : ranges_) {
    if (options.sack_count >= max_blocks) break;
    if (!listed(r)) options.add_sack({r.left, r.right});
  }
}

void ReceiveBuffer::release_if_empty(Budget& budget) {
  if (held() == 0 && ranges_.empty()) {
    budget_ = &budget;
    release();
  }
}

void ReceiveBuffer::release() {
  if (!ring_) return;
  if (budget_) budget_->give(capacity_);
  ring_.reset();
  capacity_ = 0;
  head_ = 0;
}

}  // namespace net::tcp
