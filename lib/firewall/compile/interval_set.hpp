#pragma once
// Set algebra on sorted interval lists: the building block of conditions and tables.
#include <cstdint>

#include "keel/firewall/ruleset.hpp"

namespace keel::firewall {

// Sorts and merges overlapping or adjacent intervals.
void normalize(IntervalSet& set);
IntervalSet intersect(const IntervalSet& a, const IntervalSet& b);
IntervalSet unite(const IntervalSet& a, const IntervalSet& b);
IntervalSet complement(const IntervalSet& a, uint32_t domain_max);
bool contains(const IntervalSet& set, uint32_t value);
bool is_full(const IntervalSet& set, uint32_t domain_max);
inline IntervalSet single(uint32_t lo, uint32_t hi) { return IntervalSet{{lo, hi}}; }

}  // namespace keel::firewall
