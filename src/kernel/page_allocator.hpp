// Hands out page-aligned ranges of physical memory (identity mapped): the
// backing of mmap, and so of malloc. Free ranges sit in a fixed, sorted
// array so the allocator itself never allocates.
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel::kernel {

class PageAllocator {
 public:
  static constexpr uint64_t page_size = 4096;
  static constexpr std::size_t max_ranges = 256;

  // Adds [start, start + size), trimmed to whole pages. False if the table is full.
  bool add(uint64_t start, uint64_t size);
  // First fit from the lowest address; 0 when nothing fits.
  uint64_t allocate(uint64_t size);
  // Returns a range; neighbours are merged. False on a double or bad free.
  bool free(uint64_t start, uint64_t size);

  uint64_t free_bytes() const;
  uint64_t largest_free() const;
  std::size_t range_count() const { return count_; }

 private:
  struct Range {
    uint64_t start = 0, end = 0;
  };
  bool insert_at(std::size_t index, Range range);
  void erase_at(std::size_t index);

  Range ranges_[max_ranges] = {};
  std::size_t count_ = 0;
};

}  // namespace keel::kernel
