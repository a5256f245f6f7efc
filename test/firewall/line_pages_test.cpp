// Tree lines placed by page (compile/line_pages.cpp, decision 0065): the same tree, every line
// after its parent (the loader's order) and every subtree of at most a page of lines on one page,
// wherever in a page the tree's first line falls.
#include <gtest/gtest.h>

#include <random>

#include "compile/builder_parts.hpp"

namespace keel::firewall {
namespace {
constexpr uint32_t kPerPage = kPageBytes / sizeof(TreeLine);

// A random subtree in LinePacker's order (depth first, children after their parent): each exit
// a leaf, or a line while `depth` allows; `wide` subtrees branch more and grow past a page.
uint32_t grow(std::vector<TreeLine>& lines, std::mt19937& rng, int depth, bool wide) {
  const auto n = static_cast<uint32_t>(lines.size());
  lines.emplace_back();
  lines[n].fields = static_cast<uint32_t>(rng()) & 0x1FFFFF;
  for (uint32_t& v : lines[n].value) v = static_cast<uint32_t>(rng());
  for (int e = 0; e <= kLineSplits; ++e) {
    const bool line = depth > 0 && rng() % 8 < (wide ? 6u : 2u);
    const uint32_t ref = line ? grow(lines, rng, depth - 1, wide)
                              : leaf_ref(static_cast<uint32_t>(rng() % 1000), rng() % 4);
    lines[n].exit[e] = ref;
  }
  return n;
}

// The subtrees at `a` (before) and `b` (after) are the same tree.
void expect_same(const std::vector<TreeLine>& before, uint32_t a,
                 const std::vector<TreeLine>& after, uint32_t b) {
  ASSERT_EQ((a & kTreeLeafRef) != 0, (b & kTreeLeafRef) != 0);
  if (a & kTreeLeafRef) {
    EXPECT_EQ(a, b);
    return;
  }
  ASSERT_LT(b, after.size());
  EXPECT_EQ(before[a].fields, after[b].fields);
  for (int i = 0; i < kLineSplits; ++i) EXPECT_EQ(before[a].value[i], after[b].value[i]);
  for (int e = 0; e <= kLineSplits; ++e)
    expect_same(before, before[a].exit[e], after, after[b].exit[e]);
}

TEST(LinePages, SubtreesOfAPageLieOnOnePage) {
  std::mt19937 rng(65);
  for (const uint32_t first_line : {0u, 1u, 37u, 63u, 64u, 200u}) {
    std::vector<TreeLine> lines;
    std::vector<uint32_t> roots;
    for (int slot = 0; slot < 300; ++slot) {
      const uint32_t kind = rng() % 10;
      roots.push_back(kind < 3 ? leaf_ref(slot, 1)
                               : grow(lines, rng, kind == 9 ? 3 : 2, kind == 9));
    }
    const std::vector<uint32_t> old_roots = roots;
    const std::vector<TreeLine> placed = place_lines_by_page(lines, roots, first_line);
    for (size_t s = 0; s < roots.size(); ++s) expect_same(lines, old_roots[s], placed, roots[s]);
    // Sizes and page spans of every subtree, from the back (children come later).
    std::vector<uint32_t> size(placed.size(), 1), low(placed.size()), high(placed.size());
    bool over_a_page = false;
    for (size_t n = placed.size(); n-- > 0;) {
      low[n] = high[n] = static_cast<uint32_t>((first_line + n) / kPerPage);
      for (uint32_t exit : placed[n].exit) {
        if (exit & kTreeLeafRef) continue;
        ASSERT_GT(exit, n);
        size[n] += size[exit];
        low[n] = std::min(low[n], low[exit]);
        high[n] = std::max(high[n], high[exit]);
      }
      over_a_page |= size[n] > kPerPage;
      if (size[n] <= kPerPage) EXPECT_EQ(low[n], high[n]) << size[n] << " lines on two pages";
    }
    EXPECT_TRUE(over_a_page) << "no subtree larger than a page";
    EXPECT_LT(placed.size(), lines.size() * 3 / 2) << "more than a third of the lines are filler";
  }
}

}  // namespace
}  // namespace keel::firewall
