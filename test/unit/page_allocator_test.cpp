#include "kernel/page_allocator.hpp"

#include <gtest/gtest.h>

using keel::kernel::PageAllocator;
constexpr uint64_t page = PageAllocator::page_size;

TEST(PageAllocator, TrimsAddedRangesToWholePages) {
  PageAllocator a;
  ASSERT_TRUE(a.add(0x1001, 3 * page));
  EXPECT_EQ(a.free_bytes(), 2 * page);  // [0x2000, 0x4000)
  EXPECT_EQ(a.allocate(1), 0x2000u);
}

TEST(PageAllocator, FirstFitAndExhaustion) {
  PageAllocator a;
  a.add(0x10000, 4 * page);
  EXPECT_EQ(a.allocate(page), 0x10000u);
  EXPECT_EQ(a.allocate(2 * page + 1), 0x11000u);  // rounds up to 3 pages
  EXPECT_EQ(a.allocate(page), 0u);
  EXPECT_EQ(a.free_bytes(), 0u);
  EXPECT_EQ(a.allocate(0), 0u);
}

TEST(PageAllocator, FreeMergesNeighbours) {
  PageAllocator a;
  a.add(0x10000, 3 * page);
  uint64_t x = a.allocate(page), y = a.allocate(page), z = a.allocate(page);
  EXPECT_TRUE(a.free(x, page));
  EXPECT_TRUE(a.free(z, page));
  EXPECT_EQ(a.range_count(), 2u);
  EXPECT_TRUE(a.free(y, page));
  EXPECT_EQ(a.range_count(), 1u);
  EXPECT_EQ(a.largest_free(), 3 * page);
}

TEST(PageAllocator, RejectsDoubleAndMisalignedFrees) {
  PageAllocator a;
  a.add(0x10000, 2 * page);
  uint64_t x = a.allocate(page);
  EXPECT_TRUE(a.free(x, page));
  EXPECT_FALSE(a.free(x, page));
  EXPECT_FALSE(a.free(0x10010, page));
  EXPECT_FALSE(a.free(0x10000, 0));
  EXPECT_FALSE(a.free(UINT64_MAX & ~(page - 1), 2 * page));  // wraps
  EXPECT_EQ(a.free_bytes(), 2 * page);
}

TEST(PageAllocator, AllocationLargerThanAnyRangeFails) {
  PageAllocator a;
  a.add(0x10000, 2 * page);
  a.add(0x20000, 2 * page);
  EXPECT_EQ(a.allocate(3 * page), 0u);
  EXPECT_EQ(a.allocate(UINT64_MAX), 0u);
  EXPECT_EQ(a.free_bytes(), 4 * page);
}

TEST(PageAllocator, FullRangeTableRefusesRatherThanCorrupts) {
  PageAllocator a;
  // Every other page free: max_ranges disjoint ranges fill the table.
  for (uint64_t i = 0; i < PageAllocator::max_ranges; ++i) {
    ASSERT_TRUE(a.add(0x100000 + 2 * i * page, page));
  }
  EXPECT_FALSE(a.add(0x10000000, page));
  EXPECT_EQ(a.free_bytes(), PageAllocator::max_ranges * page);
}

TEST(PageAllocator, RejectsFreesWhoseSizeWouldWrap) {
  PageAllocator a;
  a.add(0x10000, 2 * page);
  EXPECT_FALSE(a.free(0, UINT64_MAX));  // rounding the size up would wrap to 0
  EXPECT_FALSE(a.free(0x20000, UINT64_MAX - page + 2));
  EXPECT_EQ(a.free_bytes(), 2 * page);
  EXPECT_EQ(a.range_count(), 1u);
}
