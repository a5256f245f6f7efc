#pragma once
// Boolean algebra on conditions in disjunctive normal form (a list of cubes).
#include <cstddef>

#include "keel/firewall/ruleset.hpp"

namespace keel::firewall {

// Beyond this many cubes a single rule is rejected as too complex (negations of long
// conjunctions multiply out).
inline constexpr size_t kMaxCubesPerRule = 4096;

Dnf dnf_true();
Dnf dnf_field(Field field, IntervalSet set);
Dnf dnf_and(const Dnf& a, const Dnf& b);
Dnf dnf_or(Dnf a, const Dnf& b);
Dnf dnf_not(const Dnf& a);
bool cube_matches(const IrCube& cube, const Packet& packet);

}  // namespace keel::firewall
