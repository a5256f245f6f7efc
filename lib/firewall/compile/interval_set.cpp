#include "compile/interval_set.hpp"

#include <algorithm>

namespace keel::firewall {

void normalize(IntervalSet& set) {
  if (set.size() < 2) return;
  std::sort(set.begin(), set.end(),
            [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
  size_t out = 0;
  for (size_t i = 1; i < set.size(); ++i) {
    Interval& last = set[out];
    // Adjacent intervals merge too, so equal sets have one representation.
    if (last.hi == 0xFFFFFFFFu || set[i].lo <= last.hi + 1) {
      last.hi = std::max(last.hi, set[i].hi);
    } else {
      set[++out] = set[i];
    }
  }
  set.resize(out + 1);
}

IntervalSet intersect(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint32_t lo = std::max(a[i].lo, b[j].lo);
    uint32_t hi = std::min(a[i].hi, b[j].hi);
    if (lo <= hi) out.push_back({lo, hi});
    if (a[i].hi < b[j].hi)
      ++i;
    else
      ++j;
  }
  return out;
}

IntervalSet unite(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  out.reserve(a.size() + b.size());
  out.insert(out.end(), a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  normalize(out);
  return out;
}

IntervalSet complement(const IntervalSet& a, uint32_t domain_max) {
  IntervalSet out;
  uint64_t next = 0;
  for (const Interval& iv : a) {
    if (iv.lo > next) out.push_back({static_cast<uint32_t>(next), iv.lo - 1});
    next = static_cast<uint64_t>(iv.hi) + 1;
  }
  if (next <= domain_max) out.push_back({static_cast<uint32_t>(next), domain_max});
  return out;
}

bool contains(const IntervalSet& set, uint32_t value) {
  auto it = std::upper_bound(set.begin(), set.end(), value,
                             [](uint32_t v, const Interval& iv) { return v < iv.lo; });
  return it != set.begin() && std::prev(it)->hi >= value;
}

bool is_full(const IntervalSet& set, uint32_t domain_max) {
  return set.size() == 1 && set[0].lo == 0 && set[0].hi >= domain_max;
}

}  // namespace keel::firewall
