// Replays lookups with the counting runtime and sorts what each read into lines, pages and pools.
#include "lookup_touches.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include "runtime/touches.hpp"

namespace keel::firewall {
namespace {
constexpr int kPageShift = 12;
constexpr int kLinesPerPageShift = kPageShift - touches::kLineShift;

struct Pool {
  const char* name;
  uintptr_t begin, end;         // addresses
  size_t lines = 0, pages = 0;  // summed over lookups
};

template <typename T>
Pool pool(const char* name, std::span<const T> items) {
  const auto begin = reinterpret_cast<uintptr_t>(items.data());
  return {name, begin, begin + items.size_bytes()};
}

std::vector<Pool> pools_of(const TableView& t) {
  return {pool("class_maps", t.class_maps),
          pool("partitions", t.partitions),
          pool("probes", t.probes),
          pool("sets", t.sets),
          pool("tuples", t.tuples),
          pool("cubes", t.cubes),
          pool("checks", t.checks),
          pool("intervals", t.intervals),
          pool("keys", t.keys),
          pool("values", t.values),
          pool("tuple_entries", t.tuple_entries),
          pool("trees", t.trees),
          pool("tree_roots", t.tree_roots),
          pool("tree_lines", t.tree_lines),
          pool("leaf_octets", t.leaf_octets),
          pool("rules", t.rules)};
}

TouchCount summary(std::vector<size_t> counts) {
  TouchCount c;
  if (counts.empty()) return c;
  std::sort(counts.begin(), counts.end());
  double sum = 0;
  for (size_t n : counts) sum += static_cast<double>(n);
  c.mean = sum / static_cast<double>(counts.size());
  c.p99 = counts[(counts.size() * 99 + 99) / 100 - 1];
  c.max = counts.back();
  return c;
}

size_t distinct_pages(const std::vector<uintptr_t>& lines) {  // `lines` sorted
  size_t pages = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    pages += i == 0 || lines[i] >> kLinesPerPageShift != lines[i - 1] >> kLinesPerPageShift;
  return pages;
}
}  // namespace

LookupTouches count_touches(const Classifier& classifier, std::span<const uint8_t> blob,
                            std::span<const PacketLine> packets) {
  const auto blob_begin = reinterpret_cast<uintptr_t>(blob.data()) >> touches::kLineShift;
  const auto blob_end =
      (reinterpret_cast<uintptr_t>(blob.data()) + blob.size() - 1) >> touches::kLineShift;
  std::vector<Pool> pools = pools_of(classifier.tables());
  std::vector<size_t> lines_each, pages_each;
  std::set<uintptr_t> pages_all;
  std::vector<uintptr_t> lines;
  for (const PacketLine& p : packets) {
    lines.clear();
    touches::lines = &lines;
    classifier.classify(p.kind, p.hook, p.packet);
    touches::lines = nullptr;
    // Only the tables count: not the engine's own constants (an empty leaf's stand-in).
    std::erase_if(lines, [&](uintptr_t l) { return l < blob_begin || l > blob_end; });
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    lines_each.push_back(lines.size());
    pages_each.push_back(distinct_pages(lines));
    for (uintptr_t l : lines) pages_all.insert(l >> kLinesPerPageShift);
    for (Pool& pool : pools) {
      std::vector<uintptr_t> in;
      for (uintptr_t l : lines)
        if ((l << touches::kLineShift) < pool.end && ((l + 1) << touches::kLineShift) > pool.begin)
          in.push_back(l);
      pool.lines += in.size();
      pool.pages += distinct_pages(in);
    }
  }
  LookupTouches out;
  out.lookups = packets.size();
  out.lines = summary(lines_each);
  out.pages = summary(pages_each);
  out.pages_all = pages_all.size();
  out.blob_pages =
      blob.empty() ? 0 : (blob_end >> kLinesPerPageShift) - (blob_begin >> kLinesPerPageShift) + 1;
  const double n = packets.empty() ? 1 : static_cast<double>(packets.size());
  for (const Pool& pool : pools) {
    if (pool.lines == 0) continue;
    out.pools.push_back(
        {pool.name, static_cast<double>(pool.lines) / n, static_cast<double>(pool.pages) / n});
  }
  return out;
}

void print_touches(const LookupTouches& t, std::ostream& out) {
  const auto count = [&](const char* what, const TouchCount& c) {
    out << what << "_mean " << c.mean << "\n"
        << what << "_p99 " << c.p99 << "\n"
        << what << "_max " << c.max << "\n";
  };
  out << "lookups " << t.lookups << "\n";
  count("lines", t.lines);
  count("pages", t.pages);
  out << "pages_all " << t.pages_all << "\nblob_pages " << t.blob_pages << "\n";
  for (const PoolTouches& p : t.pools)
    out << "pool " << p.name << " lines_mean " << p.lines_mean << " pages_mean " << p.pages_mean
        << "\n";
}

}  // namespace keel::firewall
