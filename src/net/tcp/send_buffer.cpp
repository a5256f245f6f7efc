#include "send_buffer.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace net::tcp {

std::size_t SendBuffer::append(std::span<const uint8_t> data, Budget& budget) {
  budget_ = &budget;
  std::size_t taken = 0;
  while (taken < data.size()) {
    Chunk* last = chunks_.empty() ? nullptr : &chunks_.back();
    if (!last || !last->storage || last->size == last->capacity) {
      // Small writes get small chunks (10,000 idle connections echoing a
      // line each must not hold 16 KiB apiece); large ones the largest.
      std::size_t floor = budget.under_pressure() ? min_chunk_under_pressure : min_chunk;
      std::size_t want = std::clamp(std::bit_ceil(data.size() - taken), floor, max_chunk);
      if (!budget.take(want)) break;
      Chunk c;
      c.start = front_ + size_;
      c.storage.reset(new (std::nothrow) uint8_t[want]);
      if (!c.storage) {
        budget.give(want);
        break;
      }
      c.data = c.storage.get();
      c.capacity = uint32_t(want);
      chunks_.push_back(std::move(c));
      last = &chunks_.back();
    }
    std::size_t n = std::min<std::size_t>(last->capacity - last->size, data.size() - taken);
    std::memcpy(last->storage.get() + last->size, data.data() + taken, n);
    last->size += uint32_t(n);
    taken += n;
    size_ += n;
  }
  return taken;
}

bool SendBuffer::append(TcpBuffer buffer, Budget& budget) {
  budget_ = &budget;
  if (buffer.bytes.empty()) return true;
  if (!budget.take(buffer.bytes.size())) return false;
  Chunk c;
  c.start = front_ + size_;
  c.owner = std::move(buffer.owner);
  c.data = buffer.bytes.data();
  c.size = c.capacity = uint32_t(buffer.bytes.size());
  size_ += c.size;
  chunks_.push_back(std::move(c));
  return true;
}

std::size_t SendBuffer::chunk_at(uint64_t pos) const {
  // The last chunk starting at or before pos (chunks are in stream order).
  std::size_t lo = 0, hi = chunks_.size();
  while (hi - lo > 1) {
    std::size_t mid = (lo + hi) / 2;
    if (chunks_[mid].start <= pos)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

void SendBuffer::copy(std::size_t offset, std::size_t len, uint8_t* out) const {
  if (len == 0) return;
  uint64_t pos = front_ + offset;
  for (std::size_t i = chunk_at(pos); len > 0 && i < chunks_.size(); ++i) {
    const Chunk& c = chunks_[i];
    std::size_t within = std::size_t(pos - c.start);
    std::size_t n = std::min<std::size_t>(c.size - within, len);
    std::memcpy(out, c.data + within, n);
    out += n;
    pos += n;
    len -= n;
  }
}

void SendBuffer::drop_front(std::size_t n) {
  n = std::min(n, size_);
  front_ += n;
  size_ -= n;
  std::size_t drop = 0;
  for (; drop < chunks_.size(); ++drop) {
    const Chunk& c = chunks_[drop];
    // Keep a copy chunk that still takes writes (the queue emptied into it).
    bool drained = c.start + c.size <= front_;
    bool open = c.storage && c.size < c.capacity && drop + 1 == chunks_.size() &&
                !(budget_ && budget_->under_pressure());
    if (!drained || open) break;
    if (budget_) budget_->give(c.capacity);
  }
  chunks_.erase(chunks_.begin(), chunks_.begin() + std::ptrdiff_t(drop));
}

void SendBuffer::clear() {
  for (const Chunk& c : chunks_)
    if (budget_) budget_->give(c.capacity);
  chunks_.clear();
  front_ += size_;
  size_ = 0;
}

}  // namespace net::tcp
