// Places a tree's lines by 4 KiB page, so that a walk reads few pages (decision 0065): under
// QEMU TCG every guest page a lookup touches costs a software TLB fill. The lines pool starts on
// a page in the blob (runtime/blob_format.hpp), so line i of the pool lies on page i / 64.
//
// A subtree that fits in the room left on one of the last few open pages goes there whole
// (first fit, in root-slot order); a larger one gets a page of its own for its top lines,
// breadth first (a subtree that fits in the room left goes whole), and its other subtrees are
// placed the same way. So a subtree of at most a page of lines lies on one page. A line always
// lands after its parent (a later page, or later on the same page), as the loader requires.
#include <algorithm>
#include <deque>

#include "compile/builder_parts.hpp"

namespace keel::firewall {
namespace {
constexpr uint32_t kLinesPerPage = kPageBytes / sizeof(TreeLine);
constexpr size_t kOpenPages = 16;  // pages first fit looks at (the latest ones)
constexpr uint32_t kUnplaced = ~0u;

bool is_line(uint32_t ref) { return (ref & kTreeLeafRef) == 0; }

class PagePlacer {
 public:
  PagePlacer(const std::vector<TreeLine>& lines, uint32_t first_line)
      : lines_(lines), size_(lines.size(), 1), position_(lines.size(), kUnplaced) {
    // Children come after their parent (LinePacker's depth-first order): sizes from the back.
    for (size_t n = lines.size(); n-- > 0;)
      for (uint32_t exit : lines[n].exit)
        if (is_line(exit)) size_[n] += size_[exit];
    base_ = first_line;
    used_.push_back(first_line % kLinesPerPage);  // the previous tree's lines on this page
  }

  // Places the subtree of line `n`, on page `min_page` (local page numbers) or later.
  void place(uint32_t n, size_t min_page) {
    if (position_[n] != kUnplaced) return;
    if (size_[n] <= kLinesPerPage) {
      const size_t page = page_with_room(size_[n], min_page);
      put_subtree(n, page);
      return;
    }
    // Too large for a page: its top lines breadth first on a page of its own, each subtree
    // that fits in the room left there whole; the others later.
    const size_t page = new_page(std::max(min_page, used_.size()));
    std::deque<uint32_t> queue{n};
    std::vector<uint32_t> rest;
    while (!queue.empty()) {
      const uint32_t line = queue.front();
      queue.pop_front();
      const uint32_t room = kLinesPerPage - used_[page];
      if (size_[line] <= room) {
        put_subtree(line, page);
      } else if (size_[line] <= kLinesPerPage || room == 0) {
        rest.push_back(line);
      } else {
        put(line, page);
        for (uint32_t exit : lines_[line].exit)
          if (is_line(exit)) queue.push_back(exit);
      }
    }
    for (uint32_t line : rest) place(line, page + 1);
  }

  // Lines in their new order (unused places filled with lines that lead to an empty leaf), and
  // the new index of each old line.
  std::vector<TreeLine> ordered(std::vector<uint32_t>& index_of) const {
    uint32_t end = 0;
    for (uint32_t p : position_) end = std::max(end, p + 1);
    TreeLine filler;
    std::fill(std::begin(filler.exit), std::end(filler.exit), leaf_ref(0, 0));
    std::vector<TreeLine> out(end, filler);
    for (size_t n = 0; n < lines_.size(); ++n) out[position_[n]] = lines_[n];
    index_of = position_;
    return out;
  }

 private:
  size_t new_page(size_t at_least) {
    while (used_.size() <= at_least) used_.push_back(0);
    return at_least;
  }
  size_t page_with_room(uint32_t lines, size_t min_page) {
    const size_t from =
        std::max(min_page, used_.size() > kOpenPages ? used_.size() - kOpenPages : 0);
    for (size_t p = from; p < used_.size(); ++p)
      if (kLinesPerPage - used_[p] >= lines) return p;
    return new_page(std::max(min_page, used_.size()));
  }
  void put(uint32_t n, size_t page) {
    position_[n] =
        static_cast<uint32_t>(page * kLinesPerPage + used_[page]++) - base_ % kLinesPerPage;
  }
  void put_subtree(uint32_t n, size_t page) {  // depth first, contiguous
    put(n, page);
    for (uint32_t exit : lines_[n].exit)
      if (is_line(exit) && position_[exit] == kUnplaced) put_subtree(exit, page);
  }

  const std::vector<TreeLine>& lines_;
  std::vector<uint32_t> size_;
  std::vector<uint32_t> position_;  // new index of each line (from the tree's first line)
  std::vector<uint32_t> used_;      // lines placed on each page, from the tree's first page
  uint32_t base_ = 0;
};
}  // namespace

std::vector<TreeLine> place_lines_by_page(const std::vector<TreeLine>& lines,
                                          std::vector<uint32_t>& root_refs, uint32_t first_line) {
  PagePlacer placer(lines, first_line);
  for (uint32_t ref : root_refs)
    if (is_line(ref)) placer.place(ref, 0);
  std::vector<uint32_t> index_of;
  std::vector<TreeLine> out = placer.ordered(index_of);
  const auto renumber = [&](uint32_t& ref) {
    if (is_line(ref)) ref = index_of[ref];
  };
  for (TreeLine& line : out)
    for (uint32_t& exit : line.exit) renumber(exit);
  for (uint32_t& ref : root_refs) renumber(ref);
  return out;
}

}  // namespace keel::firewall
