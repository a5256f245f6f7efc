#pragma once
// The classifier tables: flat pools of plain records joined by indices. The compiler builds
// them, serializes them into a blob, and the runtime loader validates every index before use.
// Runtime-safe: std containers only.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "keel/firewall/packet.hpp"

namespace keel::firewall {

struct Interval {
  uint32_t lo = 0;
  uint32_t hi = 0;
};

// Field value must lie in intervals[first, first + count) (sorted, disjoint).
struct FieldCheck {
  uint32_t first = 0;
  uint16_t count = 0;
  uint8_t field = 0;
  uint8_t pad = 0;
};

// One conjunction of field checks with the rule it belongs to.
struct Cube {
  uint32_t rule = 0;
  uint32_t first_check = 0;
  uint32_t check_count = 0;
};

// How a set table stores its key field.
enum class SetKind : uint8_t {
  intervals,   // sorted (start, rule) pairs in keys, optionally with a direct index on the top bits
  exact_hash,  // open-addressing hash of (key, rule) pairs in keys (e.g. a /32 blocklist)
  direct,      // one rule per point of a small (<= 16 bit) domain, in values
};

// An interval index entry is a segment number, or (top bit set) the rule of a bucket that no
// segment boundary crosses: kNoRule stays all ones, rule r is stored as r | top bit.
inline constexpr uint32_t kSetIndexLeaf = 0x80000000u;
constexpr uint32_t set_index_leaf(uint32_t rule) { return rule | kSetIndexLeaf; }
constexpr uint32_t set_index_rule(uint32_t entry) {
  return entry == kNoRule ? kNoRule : entry & ~kSetIndexLeaf;
}

// A run of rules that share every condition but one field: one lookup answers all of them.
// Values are rule numbers (kNoRule for gaps), the lowest-numbered rule covering each point.
struct SetTable {
  uint8_t field = 0;
  SetKind kind = SetKind::intervals;
  uint8_t index_bits = 0;  // intervals: top bits indexed directly (0 = plain binary search)
  uint8_t pad = 0;
  uint32_t first_check = 0;  // shared residual conditions
  uint32_t check_count = 0;
  uint32_t first = 0;  // intervals, exact_hash: pairs in keys (count * 2 entries); direct: values
  uint32_t count = 0;  // segments, hash slots (a power of two) or direct entries
  uint32_t index_first = 0;  // intervals with index_bits > 0: 1 << index_bits entries in keys;
                             // exact_hash: the key of an empty slot (not in the set)
};

// Tuple space search table: cubes hashed on the leading bits of the five header fields.
inline constexpr int kTupleFields = 5;
inline constexpr std::array<Field, kTupleFields> kTupleFieldList = {
    Field::saddr, Field::daddr, Field::sport, Field::dport, Field::proto};

// How a tuple table stores its entries.
enum class TupleFormat : uint8_t {
  cubes,   // entries are cube ids in `values` (any condition; checks walked per candidate)
  packed,  // entries are TupleEntry records in `tuple_entries` (5-tuple conditions, checked inline)
};

struct TupleTable {
  std::array<uint8_t, kTupleFields> lengths{};  // leading bits hashed per field
  uint8_t bucket_bits = 0;
  TupleFormat format = TupleFormat::cubes;
  uint8_t pad = 0;
  uint32_t offsets_first = 0;  // (1 << bucket_bits) + 1 offsets into entries
  uint32_t entries_first = 0;  // each bucket sorted by rule
  uint32_t entries_count = 0;
};

// A cube of the ClassBench shape stored inline: address prefixes, port ranges, protocol range.
// One record replaces a Cube, its FieldChecks and their Intervals (24 bytes instead of ~70).
struct TupleEntry {
  uint32_t rule = 0;
  uint32_t saddr = 0;  // prefix value (bits past the length are zero)
  uint32_t daddr = 0;
  uint16_t sport_lo = 0, sport_hi = 0;
  uint16_t dport_lo = 0, dport_hi = 0;
  uint8_t saddr_length = 0, daddr_length = 0;
  uint8_t proto_lo = 0, proto_hi = 0;
};

// Mask of a `length`-bit IPv4 prefix (0 for length 0).
constexpr uint32_t prefix_mask(uint32_t length) {
  return static_cast<uint32_t>((0xFFFFFFFF00000000ull >> length) & 0xFFFFFFFFu);
}

// Decision tree over packed entries (HyperSplit, Qi et al. 2009): binary splits on one tuple
// field at a rule endpoint, leaves holding a few entries in rule order. A lookup costs one path
// down the tree plus a short leaf test, whatever the number of tuple shapes. The binary tree is
// stored three levels to a cache line (TreeLine), and leaves as octets (LeafOctet).
//
// A tree reference is a line (an index into the tree's lines) or, with kTreeLeafRef set, a
// leaf: `leaf_count` octets from `leaf_first` in the tree's octets.
inline constexpr uint32_t kTreeLeafRef = 0x80000000u;
inline constexpr int kLeafFirstBits = 27;
inline constexpr uint32_t kMaxLeafOctets = 15;
constexpr uint32_t leaf_ref(uint32_t first, uint32_t count) {
  return kTreeLeafRef | count << kLeafFirstBits | first;
}
constexpr uint32_t leaf_first(uint32_t ref) { return ref & ((1u << kLeafFirstBits) - 1); }
constexpr uint32_t leaf_count(uint32_t ref) { return (ref >> kLeafFirstBits) & kMaxLeafOctets; }

// Three levels of the binary tree in one cache line: split i (heap order, 0..6) sends a value
// below value[i] to 2i + 1, else to 2i + 2; positions 7..14 are the exits, references to
// later lines or to leaves. A leaf above the third level fills its positions with splits at
// value 0 (every value goes right) and its exits with itself.
inline constexpr int kLineSplits = 7;
inline constexpr int kLineLevels = 3;
inline constexpr int kMaxTreeLines = 22;  // lines on a walk (the builder splits at most 64 levels)
// The lines pool starts on a page of the blob and the compiler places each tree's lines by page
// (compile/line_pages.cpp): under QEMU TCG each page a lookup touches costs a TLB fill.
inline constexpr uint32_t kPageBytes = 4096;
struct alignas(64) TreeLine {
  uint32_t fields = 0;  // 3 bits per split: index into kTupleFieldList; bits past 21 zero
  uint32_t value[kLineSplits]{};
  uint32_t exit[kLineSplits + 1]{};
};
constexpr int line_field(const TreeLine& line, int split) {
  return static_cast<int>(line.fields >> (3 * split) & 7);
}

// A 16-bit range [lo, hi] as one word that a signed 16-bit compare tests in one step: the low
// half is lo ^ 0x8000, the high half ~hi ^ 0x8000 (so `hi >= v` reads as `~hi <= ~v`). A value
// v lies in the range when neither half of range_key(lo, hi) is greater (as int16) than the
// same half of range_key(v, v).
constexpr uint32_t range_key(uint32_t lo, uint32_t hi) {
  return ((lo ^ 0x8000u) & 0xFFFFu) | ((hi ^ 0x7FFFu) & 0xFFFFu) << 16;
}

// Eight entries of a tree leaf stored field by field, so one instruction tests one field of
// four entries (SSE2, a "quad": lanes 0-3 or 4-7) or of all eight (AVX2). A leaf is one or a
// few consecutive octets. Lanes are in rule order; unused lanes at the end hold kNoRule and
// never match (address mask 0, value 1).
struct alignas(64) LeafOctet {
  uint32_t saddr[8];       // prefix values
  uint32_t saddr_mask[8];  // prefix masks
  uint32_t daddr[8];
  uint32_t daddr_mask[8];
  uint32_t sport[8];  // range_key(lo, hi)
  uint32_t dport[8];
  uint32_t proto[8];
  uint32_t rule[8];
};

// One tree: its root references, lines and leaves' octets (leaves with the same entries share
// them). The first level is a cut: the leading `root_bits` bits of tuple field `root_field`
// pick one of 2^root_bits root references (a group of rules all specific in that field is cut
// there without copies, in one read instead of root_bits binary levels).
inline constexpr int kMaxTreeRootBits = 16;
struct TreeTable {
  uint32_t roots_first = 0;  // into tree_roots
  uint32_t lines_first = 0;  // into tree_lines
  uint32_t lines_count = 0;
  uint32_t octets_first = 0;  // into leaf_octets
  uint32_t octets_count = 0;
  uint8_t root_field = 0;  // index into kTupleFieldList
  uint8_t root_bits = 0;
  uint8_t pad[2]{};
};

enum class ProbeKind : uint8_t { set, tuple, tree };
struct Probe {
  ProbeKind kind = ProbeKind::set;
  uint8_t pad[3]{};
  uint32_t index = 0;
  uint32_t best_rule = 0;  // lowest rule number reachable through this probe (early exit)
};

struct Partition {
  uint32_t first_probe = 0;
  uint32_t probe_count = 0;
};

inline constexpr int kMaxDispatchFields = 4;
inline constexpr uint32_t kClassMapSize = 256;

// One chain attached to a hook. Dispatch fields map through 256-entry class maps; the
// partition index is the mixed-radix number of the classes.
struct ChainTable {
  uint8_t present = 0;
  Action policy = Action::accept;
  uint8_t dispatch_count = 0;
  uint8_t pad = 0;
  std::array<uint8_t, kMaxDispatchFields> dispatch_field{};
  std::array<uint16_t, kMaxDispatchFields> class_count{};
  uint32_t class_maps_first = 0;  // dispatch_count * 256 bytes
  uint32_t first_partition = 0;
  uint32_t partition_count = 0;
  uint32_t first_rule = 0;  // rule numbers of this chain are first_rule.. (informational)
};

inline constexpr uint8_t kRuleLog = 1;
struct RuleInfo {
  Action action = Action::accept;
  uint8_t flags = 0;
  uint16_t nat_port_lo = 0;
  uint16_t nat_port_hi = 0;
  uint16_t log_rate_per_minute = 0;  // 0 = unlimited
  uint32_t nat_address = 0;
  uint32_t source_id = 0;   // the rule statement's id in the source (for diagnostics)
  uint32_t log_prefix = 0;  // into strings (0 = empty string)
};

struct InterfaceInfo {
  uint32_t name = 0;  // into strings
  uint32_t address = 0;
  uint32_t netmask = 0;
  uint32_t gateway = 0;
  uint16_t vlan = 0;
  uint8_t dhcp = 0;
  uint8_t pad = 0;
};

struct RouteInfo {
  uint32_t prefix = 0;
  uint32_t gateway = 0;
  uint32_t metric = 0;
  uint8_t length = 0;
  uint8_t interface = kUnknownInterface;
  uint8_t pad[2]{};
};

inline constexpr int kChainSlots = kChainKindCount * kHookCount;
constexpr int chain_slot(ChainKind kind, Hook hook) {
  return static_cast<int>(kind) * kHookCount + static_cast<int>(hook);
}

static_assert(sizeof(Interval) == 8 && sizeof(FieldCheck) == 8 && sizeof(Cube) == 12);
static_assert(sizeof(SetTable) == 24 && sizeof(TupleTable) == 20 && sizeof(Probe) == 12);
static_assert(sizeof(TupleEntry) == 24 && sizeof(TreeLine) == 64 && sizeof(TreeTable) == 24);
static_assert(sizeof(LeafOctet) == 256);
static_assert(sizeof(ChainTable) == 32 && sizeof(RuleInfo) == 20 && sizeof(InterfaceInfo) == 20);
static_assert(sizeof(RouteInfo) == 16 && sizeof(Partition) == 8);

// Leading `length` bits of a `bits`-wide field value (the TupleMerge key part).
// Branch-free: `value` fits in `bits` and `length` <= `bits`, so length 0 yields 0.
constexpr uint32_t leading_bits(uint32_t value, int bits, int length) {
  return static_cast<uint32_t>((uint64_t{value} << length) >> bits);
}

// The key a tuple table with `lengths` hashes for a packet (fields in kTupleFieldList order).
constexpr std::array<uint32_t, kTupleFields> tuple_key(
    const Packet& p, const std::array<uint8_t, kTupleFields>& lengths) {
  return {leading_bits(p.saddr, 32, lengths[0]), leading_bits(p.daddr, 32, lengths[1]),
          leading_bits(p.sport, 16, lengths[2]), leading_bits(p.dport, 16, lengths[3]),
          leading_bits(p.proto, 8, lengths[4])};
}

// Hash of a tuple key; the top bits pick the bucket. Shared by builder and lookup.
// Two independent multiplies (addresses, ports + protocol) instead of a chain of five: the
// top bits of each product depend on every key bit, and a lookup hashes once per table.
constexpr uint64_t tuple_hash(const std::array<uint32_t, kTupleFields>& key) {
  const uint64_t addresses = uint64_t{key[0]} << 32 | key[1];
  const uint64_t rest = uint64_t{key[2]} << 24 | uint64_t{key[3]} << 8 | key[4];
  return (addresses * 0x9E3779B97F4A7C15ull) ^ ((rest + 1) * 0xC2B2AE3D27D4EB4Full);
}

// Slot hash of exact-value set tables (Fibonacci hashing).
constexpr uint32_t exact_hash(uint32_t key) {
  return static_cast<uint32_t>((uint64_t{key} * 0x9E3779B97F4A7C15ull) >> 32);
}

struct Tables {
  std::array<ChainTable, kChainSlots> chains{};
  std::vector<uint8_t> class_maps;
  std::vector<Partition> partitions;
  std::vector<Probe> probes;
  std::vector<SetTable> sets;
  std::vector<TupleTable> tuples;
  std::vector<Cube> cubes;
  std::vector<FieldCheck> checks;
  std::vector<Interval> intervals;
  std::vector<uint32_t> keys;             // set keys, tuple offsets, set indexes
  std::vector<uint32_t> values;           // set values (rule numbers), tuple entries (cube ids)
  std::vector<TupleEntry> tuple_entries;  // entries of packed tuple tables
  std::vector<LeafOctet> leaf_octets;     // tree leaves
  std::vector<TreeTable> trees;
  std::vector<uint32_t> tree_roots;  // tree references of the root cuts
  std::vector<TreeLine> tree_lines;
  std::vector<RuleInfo> rules;
  std::vector<InterfaceInfo> interfaces;
  std::vector<RouteInfo> routes;
  std::vector<std::string> strings;  // strings[0] is ""
  uint8_t conntrack = 1;
};

}  // namespace keel::firewall
