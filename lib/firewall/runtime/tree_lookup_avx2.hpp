#pragma once
// Tree lookups with AVX2 (tree_lookup_avx2.cpp); only where cpu_has_avx2() (classifier.hpp).
#include <cstdint>

#include "keel/firewall/packet.hpp"
#include "keel/firewall/table_view.hpp"

namespace keel::firewall {

// Walks `count` (1-8) consecutive tree probes for `packet` and tests the leaves reached; returns
// the better of `best` and their matches. Same answer as Classifier::walk_trees.
uint32_t lookup_trees_avx2(const TableView& tables, const Probe* probes, uint32_t count,
                           const Packet& packet, uint32_t best);

}  // namespace keel::firewall
