#include "page_allocator.hpp"

namespace keel::kernel {
namespace {
constexpr uint64_t round_up(uint64_t v) {
  return (v + PageAllocator::page_size - 1) & ~(PageAllocator::page_size - 1);
}
constexpr uint64_t round_down(uint64_t v) { return v & ~(PageAllocator::page_size - 1); }
}  // namespace

bool PageAllocator::insert_at(std::size_t index, Range range) {
  if (count_ == max_ranges) return false;
  for (std::size_t i = count_; i > index; --i) ranges_[i] = ranges_[i - 1];
  ranges_[index] = range;
  ++count_;
  return true;
}

void PageAllocator::erase_at(std::size_t index) {
  for (std::size_t i = index; i + 1 < count_; ++i) ranges_[i] = ranges_[i + 1];
  --count_;
}

bool PageAllocator::add(uint64_t start, uint64_t size) {
  if (start + size < start) return false;  // wraps around
  uint64_t begin = round_up(start), end = round_down(start + size);
  if (begin >= end) return true;
  return free(begin, end - begin);
}

uint64_t PageAllocator::allocate(uint64_t size) {
  if (size == 0 || size > UINT64_MAX - page_size) return 0;
  size = round_up(size);
  for (std::size_t i = 0; i < count_; ++i) {
    Range& r = ranges_[i];
    if (r.end - r.start < size) continue;
    uint64_t start = r.start;
    r.start += size;
    if (r.start == r.end) erase_at(i);
    return start;
  }
  return 0;
}

bool PageAllocator::free(uint64_t start, uint64_t size) {
  if (size == 0 || size > UINT64_MAX - page_size || start % page_size != 0) return false;
  if (start + round_up(size) < start) return false;  // wraps around
  uint64_t end = start + round_up(size);
  std::size_t i = 0;
  while (i < count_ && ranges_[i].start < start) ++i;
  // Overlap with a free neighbour means a double free or a bad range.
  if (i > 0 && ranges_[i - 1].end > start) return false;
  if (i < count_ && ranges_[i].start < end) return false;
  bool joins_left = i > 0 && ranges_[i - 1].end == start;
  bool joins_right = i < count_ && ranges_[i].start == end;
  if (joins_left && joins_right) {
    ranges_[i - 1].end = ranges_[i].end;
    erase_at(i);
  } else if (joins_left) {
    ranges_[i - 1].end = end;
  } else if (joins_right) {
    ranges_[i].start = start;
  } else {
    return insert_at(i, {start, end});
  }
  return true;
}

uint64_t PageAllocator::free_bytes() const {
  uint64_t total = 0;
  for (std::size_t i = 0; i < count_; ++i) total += ranges_[i].end - ranges_[i].start;
  return total;
}

uint64_t PageAllocator::largest_free() const {
  uint64_t largest = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    uint64_t n = ranges_[i].end - ranges_[i].start;
    if (n > largest) largest = n;
  }
  return largest;
}

}  // namespace keel::kernel
