// How a built tree is stored (tables.hpp): its leaves as octets of entries, its binary nodes
// three levels to a line, its root cut's slots as references.
#include <unordered_map>

#include "compile/builder_parts.hpp"

namespace keel::firewall {
namespace {
struct IdsHash {
  size_t operator()(const std::vector<uint32_t>& ids) const {
    uint64_t h = ids.size();
    for (uint32_t id : ids) h = (h ^ id) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h);
  }
};

// Rewrites each leaf from entry references (`refs`) to its first octet and octet count, the
// octets appended to `octets`; leaves listing the same entries (a wide rule alone in many root
// slots, empty leaves) share.
void store_leaves(std::vector<TreeBuildNode>& nodes, const std::vector<uint32_t>& refs,
                  const std::vector<TupleEntry>& entries, std::vector<LeafOctet>& octets) {
  std::unordered_map<std::vector<uint32_t>, uint32_t, IdsHash> stored;  // entry ids -> first octet
  const auto first = static_cast<uint32_t>(octets.size());
  for (TreeBuildNode& node : nodes) {
    if (node.field != TreeBuildNode::kLeaf) continue;
    std::vector<uint32_t> ids(refs.begin() + node.value, refs.begin() + node.value + node.child);
    const auto count = static_cast<uint32_t>((ids.size() + 7) / 8);
    auto [at, added] = stored.try_emplace(ids, static_cast<uint32_t>(octets.size()) - first);
    if (added) {
      for (size_t i = 0; i < ids.size(); i += 8) {
        std::array<TupleEntry, 8> lanes;
        const size_t used = std::min<size_t>(8, ids.size() - i);
        for (size_t lane = 0; lane < used; ++lane) lanes[lane] = entries[ids[i + lane]];
        octets.push_back(leaf_octet(std::span(lanes).first(used)));
      }
    }
    node.value = count ? at->second : 0;
    node.child = count;
  }
}

// Packs the binary tree into lines of three levels (TreeLine); fails when a leaf holds more
// octets than a reference can name.
class LinePacker {
 public:
  LinePacker(const std::vector<TreeBuildNode>& nodes, std::vector<TreeLine>& lines)
      : nodes_(nodes), lines_(lines) {}

  // The reference to binary node `n`: its leaf, or a new line holding its top three levels.
  uint32_t ref(uint32_t n) {
    const TreeBuildNode& node = nodes_[n];
    if (node.field == TreeBuildNode::kLeaf) {
      if (node.child > kMaxLeafOctets || node.value >= (1u << kLeafFirstBits)) failed_ = true;
      return failed_ ? 0 : leaf_ref(node.value, node.child);
    }
    const auto line = static_cast<uint32_t>(lines_.size());
    lines_.emplace_back();
    fill(line, n, 0);
    return line;
  }
  bool failed() const { return failed_; }

 private:
  // Puts binary node `n` at heap position `at` of `line` (an exit from 7 on).
  void fill(uint32_t line, uint32_t n, int at) {
    if (at >= kLineSplits) {
      const uint32_t exit = ref(n);  // may grow lines_: index again below
      lines_[line].exit[at - kLineSplits] = exit;
      return;
    }
    const TreeBuildNode& node = nodes_[n];
    if (node.field ==
        TreeBuildNode::kLeaf) {  // a pass-through split (value 0: every value goes right)
      fill(line, n, 2 * at + 1);
      fill(line, n, 2 * at + 2);
      return;
    }
    lines_[line].fields |= uint32_t{node.field} << (3 * at);
    lines_[line].value[at] = node.value;
    fill(line, node.child, 2 * at + 1);
    fill(line, node.child + 1, 2 * at + 2);
  }

  const std::vector<TreeBuildNode>& nodes_;
  std::vector<TreeLine>& lines_;
  bool failed_ = false;
};
}  // namespace

LeafOctet leaf_octet(std::span<const TupleEntry> entries) {
  LeafOctet octet;
  for (size_t lane = 0; lane < 8; ++lane) {
    if (lane >= entries.size()) {
      octet.saddr[lane] = 1;  // & mask 0 is never 1
      octet.saddr_mask[lane] = octet.daddr[lane] = octet.daddr_mask[lane] = 0;
      octet.sport[lane] = octet.dport[lane] = octet.proto[lane] = range_key(0, 0xFFFF);
      octet.rule[lane] = kNoRule;
      continue;
    }
    const TupleEntry& e = entries[lane];
    octet.saddr[lane] = e.saddr;
    octet.saddr_mask[lane] = prefix_mask(e.saddr_length);
    octet.daddr[lane] = e.daddr;
    octet.daddr_mask[lane] = prefix_mask(e.daddr_length);
    octet.sport[lane] = range_key(e.sport_lo, e.sport_hi);
    octet.dport[lane] = range_key(e.dport_lo, e.dport_hi);
    octet.proto[lane] = range_key(e.proto_lo, e.proto_hi);
    octet.rule[lane] = e.rule;
  }
  return octet;
}

bool lay_out_tree(Tables& tables, TreeTable& tree, std::vector<TreeBuildNode>& nodes,
                  const std::vector<uint32_t>& refs, const std::vector<TupleEntry>& entries,
                  uint32_t roots) {
  tree.octets_first = static_cast<uint32_t>(tables.leaf_octets.size());
  store_leaves(nodes, refs, entries, tables.leaf_octets);
  tree.octets_count = static_cast<uint32_t>(tables.leaf_octets.size()) - tree.octets_first;
  std::vector<TreeLine> lines;
  std::vector<uint32_t> root_refs(roots);
  LinePacker packer(nodes, lines);
  for (uint32_t s = 0; s < roots; ++s) root_refs[s] = packer.ref(s);
  if (packer.failed()) {
    tables.leaf_octets.resize(tree.octets_first);
    return false;
  }
  tree.roots_first = static_cast<uint32_t>(tables.tree_roots.size());
  tree.lines_first = static_cast<uint32_t>(tables.tree_lines.size());
  lines = place_lines_by_page(lines, root_refs, tree.lines_first);
  tree.lines_count = static_cast<uint32_t>(lines.size());
  tables.tree_roots.insert(tables.tree_roots.end(), root_refs.begin(), root_refs.end());
  tables.tree_lines.insert(tables.tree_lines.end(), lines.begin(), lines.end());
  return true;
}

}  // namespace keel::firewall
