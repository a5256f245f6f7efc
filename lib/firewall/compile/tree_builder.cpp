// HyperSplit decision tree (Qi et al. 2009) over the packed 5-tuple entries of a partition.
// Tuple space search probes one table per rule shape, and a realistic 5-tuple mix has tens of
// shapes; a tree's lookup is one root-to-leaf walk plus a test of at most kLeafEntries entries
// (stored as octets, four or eight tested per instruction), whatever the shapes. Each node splits
// one field at a rule endpoint chosen to balance the entries on both sides and to copy few of them
// into both; entries that cover a node's whole box end its list (later ones can never match
// first there). Copies are budgeted: a tree that would exceed kMaxRefsPerEntry references per
// entry is abandoned and the caller keeps tuples.
#include <algorithm>
#include <bit>
#include <tuple>

#include "compile/builder_parts.hpp"

namespace keel::firewall {
namespace {
constexpr size_t kLeafEntries = 24;   // leaves hold at most this many entries (unless unsplittable)
constexpr size_t kSplitSample = 512;  // endpoints sampled per field to propose split points
constexpr double kMaxRefsPerEntry = 4.0;  // leaf references per entry: bounds table bytes per rule
constexpr size_t kRefSlack = 1024;        // small trees may copy more, their bytes do not matter
constexpr uint64_t kCopyWeight = 2;       // a copied entry costs this many entries of imbalance
constexpr int kCandidatesPerField = 7;    // octiles of the sampled endpoints
constexpr size_t kEntriesPerRoot = 1;     // the root cut has about entries / this many slots
// A root cut the tree chooses itself copies at most this many references per entry into its
// slots (an entry wide in the cut field lands in every slot it covers).
constexpr double kRootCopies = 2.0;

constexpr int kMaxTreeDepth = 64;  // levels of binary splits (kMaxTreeLines lines)
static_assert(kMaxTreeDepth <= kMaxTreeLines * kLineLevels);

using Bounds = std::array<uint32_t, kTupleFields>;

// An entry as intervals per tuple field; `id` is its index in the (rule-ordered) entry list.
struct Item {
  Bounds lo{}, hi{};
  uint32_t id = 0;
};

struct Box {
  Bounds lo{}, hi{};
};

Item item_of(const TupleEntry& e, uint32_t id) {
  Item it;
  it.id = id;
  it.lo = {e.saddr, e.daddr, e.sport_lo, e.dport_lo, e.proto_lo};
  it.hi = {e.saddr | ~prefix_mask(e.saddr_length), e.daddr | ~prefix_mask(e.daddr_length),
           e.sport_hi, e.dport_hi, e.proto_hi};
  return it;
}

bool covers_box(const Item& it, const Box& box) {
  for (int f = 0; f < kTupleFields; ++f)
    if (it.lo[f] > box.lo[f] || it.hi[f] < box.hi[f]) return false;
  return true;
}

struct Split {
  int field = -1;
  uint32_t value = 0;  // left: v < value, right: v >= value
  uint64_t cost = UINT64_MAX;
};

class TreeBuilder {
 public:
  explicit TreeBuilder(size_t budget) : budget_(budget) {}

  // Builds the subtree of node `at` for `items` (in rule order) inside `box`.
  void build(uint32_t at, std::vector<Item> items, const Box& box, int depth) {
    if (over_budget_) return;
    for (size_t i = 0; i < items.size(); ++i) {
      if (covers_box(items[i], box)) {
        items.resize(i + 1);
        break;
      }
    }
    const Split split =
        items.size() <= kLeafEntries || depth >= kMaxTreeDepth ? Split{} : choose(items, box);
    if (split.field < 0) return make_leaf(at, items);
    const auto child = static_cast<uint32_t>(nodes_.size());
    nodes_.resize(nodes_.size() + 2);
    nodes_[at].field = static_cast<uint8_t>(split.field);
    nodes_[at].value = split.value;
    nodes_[at].child = child;
    std::vector<Item> left, right;
    for (const Item& it : items) {
      if (it.lo[split.field] < split.value) left.push_back(it);
      if (it.hi[split.field] >= split.value) right.push_back(it);
    }
    std::vector<Item>().swap(items);
    Box left_box = box, right_box = box;
    left_box.hi[split.field] = split.value - 1;
    right_box.lo[split.field] = split.value;
    build(child, std::move(left), left_box, depth + 1);
    build(child + 1, std::move(right), right_box, depth + 1);
  }

  std::vector<TreeBuildNode> nodes_;
  std::vector<uint32_t> refs_;
  bool over_budget_ = false;

 private:
  void make_leaf(uint32_t at, const std::vector<Item>& items) {
    nodes_[at].field = TreeBuildNode::kLeaf;
    nodes_[at].value = static_cast<uint32_t>(refs_.size());
    nodes_[at].child = static_cast<uint32_t>(items.size());
    for (const Item& it : items) refs_.push_back(it.id);
    over_budget_ = refs_.size() > budget_;
  }

  // The split minimising the larger side plus the copies it makes; none when no split shrinks
  // both sides (the entries then overlap everywhere and stay one leaf).
  Split choose(const std::vector<Item>& items, const Box& box) {
    const size_t n = items.size();
    const size_t stride = std::max<size_t>(1, n / kSplitSample);
    Split best;
    for (int f = 0; f < kTupleFields; ++f) {
      sample_.clear();
      for (size_t i = 0; i < n; i += stride) {
        // Endpoints strictly inside the box: a split there leaves both sides non-empty.
        if (items[i].lo[f] > box.lo[f]) sample_.push_back(items[i].lo[f]);
        if (items[i].hi[f] < box.hi[f]) sample_.push_back(items[i].hi[f] + 1);
      }
      if (sample_.empty()) continue;
      std::sort(sample_.begin(), sample_.end());
      std::array<uint32_t, kCandidatesPerField> candidates{};
      std::array<uint64_t, kCandidatesPerField> left{}, right{};
      for (int c = 0; c < kCandidatesPerField; ++c)
        candidates[c] = sample_[sample_.size() * (c + 1) / (kCandidatesPerField + 1)];
      for (const Item& it : items) {
        for (int c = 0; c < kCandidatesPerField; ++c) {
          left[c] += it.lo[f] < candidates[c];
          right[c] += it.hi[f] >= candidates[c];
        }
      }
      for (int c = 0; c < kCandidatesPerField; ++c) {
        if (std::max(left[c], right[c]) >= n) continue;
        const uint64_t cost = std::max(left[c], right[c]) + kCopyWeight * (left[c] + right[c] - n);
        if (cost < best.cost) best = {f, candidates[c], cost};
      }
    }
    return best;
  }

  size_t budget_;
  std::vector<uint32_t> sample_;
};

// Root slots entry `it` covers when the root cuts the leading `bits` of tuple field `f`.
uint64_t slots_covered(const Item& it, int f, int bits) {
  const int width = field_bits(kTupleFieldList[f]);
  return uint64_t{leading_bits(it.hi[f], width, bits)} - leading_bits(it.lo[f], width, bits) + 1;
}

// The root cut for `entries` when the caller leaves it open: for each tuple field, the most
// leading bits (at most `max_bits`) whose slots hold at most kRootCopies references per entry;
// of those, the cut whose slots are smallest as the entries see them (the sum of the squared
// slot sizes over the references), since a lookup then walks the rest of its slot.
std::pair<int, int> choose_root_cut(const std::vector<Item>& items, int max_bits) {
  const auto limit = static_cast<uint64_t>(kRootCopies * static_cast<double>(items.size()));
  std::pair<int, int> best{0, 0};
  double best_score = static_cast<double>(items.size());  // no cut: one slot of every entry
  for (int f = 0; f < kTupleFields; ++f) {
    auto copies = [&](int bits) {
      uint64_t n = 0;
      for (const Item& it : items) n += slots_covered(it, f, bits);
      return n;
    };
    int lo = 0, hi = std::min(max_bits, field_bits(kTupleFieldList[f]));
    while (lo < hi) {  // copies grow with the bits: the most bits within the limit
      const int mid = (lo + hi + 1) / 2;
      if (copies(mid) <= limit)
        lo = mid;
      else
        hi = mid - 1;
    }
    if (lo == 0) continue;
    const int width = field_bits(kTupleFieldList[f]);
    std::vector<uint32_t> load(size_t{1} << lo);
    for (const Item& it : items)
      for (uint32_t s = leading_bits(it.lo[f], width, lo); s <= leading_bits(it.hi[f], width, lo);
           ++s)
        ++load[s];
    double squares = 0, refs = 0;
    for (const uint32_t n : load) {
      squares += static_cast<double>(n) * n;
      refs += n;
    }
    const double score = squares / refs;
    if (score < best_score) best_score = score, best = {f, lo};
  }
  return best;
}

}  // namespace

bool build_tree(Tables& tables, const std::vector<TupleEntry>& entries, int root_field,
                int max_root_bits, std::vector<Probe>& probes) {
  if (entries.empty()) return false;
  TreeBuilder builder(static_cast<size_t>(kMaxRefsPerEntry * static_cast<double>(entries.size())) +
                      kRefSlack);
  // Root cut: slots for about kEntriesPerRoot entries each, on the group's specific field or
  // (kChooseRootCut) on the field and bits choose_root_cut finds.
  int root_bits =
      std::min<int>({max_root_bits, kMaxTreeRootBits,
                     static_cast<int>(std::bit_width(entries.size() / kEntriesPerRoot)) - 1});
  if (root_field == kChooseRootCut) {
    std::vector<Item> items;
    items.reserve(entries.size());
    for (uint32_t i = 0; i < entries.size(); ++i) items.push_back(item_of(entries[i], i));
    std::tie(root_field, root_bits) = choose_root_cut(items, std::max(root_bits, 0));
  }
  const int field_width = field_bits(kTupleFieldList[root_field]);
  const int bits = std::max(root_bits, 0);
  const int shift = field_width - bits;
  std::vector<std::vector<Item>> slots(size_t{1} << bits);
  for (uint32_t i = 0; i < entries.size(); ++i) {
    const Item it = item_of(entries[i], i);
    const uint32_t first = leading_bits(it.lo[root_field], field_width, bits);
    const uint32_t last = leading_bits(it.hi[root_field], field_width, bits);
    for (uint32_t s = first; s <= last; ++s) slots[s].push_back(it);
  }
  builder.nodes_.resize(slots.size());
  for (uint32_t s = 0; s < slots.size() && !builder.over_budget_; ++s) {
    Box box;
    box.hi = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFF, 0xFFFF, 0xFF};
    if (bits > 0) {
      box.lo[root_field] = static_cast<uint32_t>(uint64_t{s} << shift);
      box.hi[root_field] = static_cast<uint32_t>(((uint64_t{s} + 1) << shift) - 1);
    }
    builder.build(s, std::move(slots[s]), box, 1);
  }
  if (builder.over_budget_) return false;

  TreeTable tree;
  tree.root_field = static_cast<uint8_t>(root_field);
  tree.root_bits = static_cast<uint8_t>(bits);
  if (!lay_out_tree(tables, tree, builder.nodes_, builder.refs_, entries,
                    static_cast<uint32_t>(slots.size()))) {
    return false;
  }
  tables.trees.push_back(tree);
  Probe probe;
  probe.kind = ProbeKind::tree;
  probe.index = static_cast<uint32_t>(tables.trees.size() - 1);
  probe.best_rule = entries.front().rule;
  probes.push_back(probe);
  return true;
}

}  // namespace keel::firewall
