#pragma once
// The classifier's tables as the runtime reads them: spans over a blob in its final layout
// (runtime/blob_format.hpp), so the tables compiled into an image are used where they lie,
// mapped read-only, never copied (docs/decisions/0064). The fields are Tables' (tables.hpp,
// which the compiler builds), as read-only spans. Runtime-safe.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "keel/firewall/tables.hpp"

namespace keel::firewall {

// strings[i] is bytes[offsets[i], offsets[i + 1]); the loader checked that the offsets ascend
// within bytes and that strings[0] is "".
class StringTable {
 public:
  StringTable() = default;
  StringTable(std::span<const uint32_t> offsets, std::span<const char> bytes)
      : offsets_(offsets), bytes_(bytes) {}
  size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  std::string_view operator[](size_t i) const {
    return {bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]};
  }
  std::span<const uint32_t> offsets() const { return offsets_; }
  std::span<const char> bytes() const { return bytes_; }

 private:
  std::span<const uint32_t> offsets_;
  std::span<const char> bytes_;
};

struct TableView {
  std::array<ChainTable, kChainSlots> chains{};
  std::span<const uint8_t> class_maps;
  std::span<const Partition> partitions;
  std::span<const Probe> probes;
  std::span<const SetTable> sets;
  std::span<const TupleTable> tuples;
  std::span<const Cube> cubes;
  std::span<const FieldCheck> checks;
  std::span<const Interval> intervals;
  std::span<const uint32_t> keys;
  std::span<const uint32_t> values;
  std::span<const TupleEntry> tuple_entries;
  std::span<const TreeTable> trees;
  std::span<const uint32_t> tree_roots;
  std::span<const TreeLine> tree_lines;
  std::span<const LeafOctet> leaf_octets;
  std::span<const RuleInfo> rules;
  std::span<const InterfaceInfo> interfaces;
  std::span<const RouteInfo> routes;
  StringTable strings;
  uint8_t conntrack = 1;
};

}  // namespace keel::firewall
