#pragma once
// Internal pieces of the table builder, shared by its files.
#include <cstdint>
#include <span>
#include <vector>

#include "keel/firewall/ruleset.hpp"
#include "keel/firewall/tables.hpp"

namespace keel::firewall {

// A cube as seen inside one partition: its rule number and the fields still to test
// (dispatched fields are already decided by the partition).
struct PartCube {
  uint32_t rule = 0;
  const IrCube* cube = nullptr;
};

// Appends field checks for every field of `cube` not in `skip_mask` (bit per Field).
// Returns the first check index; `count` receives the number appended.
uint32_t emit_checks(Tables& tables, const IrCube& cube, uint32_t skip_mask, uint32_t& count);

// A run of cubes sharing all residual fields except `key`: one set table.
struct SetGroup {
  Field key = Field::saddr;
  const IrCube* residual_source = nullptr;  // any member; its fields except key are shared
  std::vector<PartCube> members;
};
uint32_t build_set_table(Tables& tables, const SetGroup& group, uint32_t skip_mask);

// Tuple space search tables for the cubes that joined no group.
void build_tuple_tables(Tables& tables, const std::vector<PartCube>& cubes, uint32_t skip_mask,
                        std::vector<Probe>& probes);

// HyperSplit tree over packed entries (in rule order), its first level a cut on the leading
// bits (at most `max_root_bits`) of tuple field `root_field`. Returns false and leaves `tables`
// and `probes` untouched when the tree would copy entries past its budget (tuples stay in use).
// With `root_field` kChooseRootCut the tree picks its root cut itself: the tuple field and the
// bits (at most `max_root_bits`) whose slots copy few entries and hold the fewest.
inline constexpr int kChooseRootCut = -1;
bool build_tree(Tables& tables, const std::vector<TupleEntry>& entries, int root_field,
                int max_root_bits, std::vector<Probe>& probes);

// A binary node while a tree is built (tree_builder.cpp) and laid out (tree_layout.cpp). Split:
// values of tuple field `field` below `value` go to `child`, the others to `child + 1`. Leaf:
// `child` entry references from `value` (octet count and first octet once laid out).
struct TreeBuildNode {
  static constexpr uint8_t kLeaf = 0xFF;
  uint32_t value = 0;
  uint32_t child = 0;
  uint8_t field = kLeaf;
};

// Stores a built tree whose first `roots` nodes are its root cut's slots: leaves as octets
// (`refs` index `entries`), nodes as lines, slots as root references; fills `tree`'s pool
// ranges. False, and `tables` unchanged, when a leaf needs more octets than a reference names.
bool lay_out_tree(Tables& tables, TreeTable& tree, std::vector<TreeBuildNode>& nodes,
                  const std::vector<uint32_t>& refs, const std::vector<TupleEntry>& entries,
                  uint32_t roots);

// `lines` (a tree's, as LinePacker numbers them) reordered by 4 KiB page, the first at
// `first_line` of the pool; `root_refs` renumbered to match (line_pages.cpp, decision 0065).
std::vector<TreeLine> place_lines_by_page(const std::vector<TreeLine>& lines,
                                          std::vector<uint32_t>& root_refs, uint32_t first_line);

// A leaf octet holding `entries` (at most 8, in rule order) in its first lanes; the others never
// match.
LeafOctet leaf_octet(std::span<const TupleEntry> entries);

inline uint32_t field_bit(Field f) { return 1u << static_cast<int>(f); }
const FieldSet* find_field(const IrCube& cube, Field f);

}  // namespace keel::firewall
