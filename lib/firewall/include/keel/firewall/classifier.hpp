#pragma once
// The runtime classifier: checks a table blob (everything a lookup will trust) and answers
// first-match verdicts from it where it lies, or from one copy of it (docs/decisions/0064).
// Runtime-safe: no I/O, no threads, no exceptions thrown.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "keel/firewall/packet.hpp"
#include "keel/firewall/table_view.hpp"
#include "keel/firewall/tables.hpp"

namespace keel::firewall {

enum class LoadStatus : uint8_t {
  ok,
  truncated,
  bad_magic,
  bad_version,
  bad_checksum,
  bad_size,
  bad_index,
  bad_enum,
  bad_order,
  trailing_bytes,
  misaligned,  // map(): the blob does not start on a 64-byte boundary
};
const char* to_string(LoadStatus status);

// Whether the CPU has AVX2 and BMI1 and the OS saves the AVX registers (CPUID, XCR0).
bool cpu_has_avx2();

// Checks every index, count, enum and order in `tables` that a lookup follows without checking,
// so lookups can never leave their pools or loop; what a lookup checks itself (the rules of
// exact-set slots, a rule's action) is left to it. Reads the tables' structure, not every entry
// of the large ones (docs/decisions/0064).
LoadStatus validate(const TableView& tables);

// The action of `rule`, drop for a value that names none: the loader does not read every rule
// of a large blob (docs/decisions/0064), so the lookup checks the one it answers with.
constexpr Action rule_action(const RuleInfo& rule) {
  return static_cast<int>(rule.action) < kActionCount ? rule.action : Action::drop;
}

class Classifier {
 public:
  // Copies `blob` once into storage the classifier owns, checks it and uses it: for blobs that
  // come and go (pushed over the management port, read from a file). On failure nothing changes
  // (a new classifier has no rules and accepts everything).
  LoadStatus load(std::span<const uint8_t> blob);
  // Checks `blob` and uses it where it lies, without a copy: it must start on a 64-byte boundary
  // and outlive the classifier (the tables compiled into the image, embedded_rules()).
  LoadStatus map(std::span<const uint8_t> blob);
  // Tables built in-process, encoded and loaded (tests and tools).
  LoadStatus adopt(const Tables& tables);

  Verdict classify(ChainKind kind, Hook hook, const Packet& packet) const;
  // Rule number of the first matching rule of that chain, or kNoRule.
  uint32_t first_match(ChainKind kind, Hook hook, const Packet& packet) const;

  // The same for a burst of packets (as a NIC ring hands them over): rules[i] (verdicts[i]) is
  // what first_match (classify) answers for packets[i]. Packets are taken kBurst at a time and
  // the first memory reads of all of them are issued before any is looked up, so their cache
  // misses overlap instead of adding up. `rules` (`verdicts`) must be as long as `packets`.
  static constexpr size_t kBurst = 16;
  void first_match_burst(ChainKind kind, Hook hook, std::span<const Packet> packets,
                         std::span<uint32_t> rules) const;
  void classify_burst(ChainKind kind, Hook hook, std::span<const Packet> packets,
                      std::span<Verdict> verdicts) const;

  const TableView& tables() const { return tables_; }
  // Walks trees and tests their leaves with AVX2 where cpu_has_avx2() (the default), else with
  // SSE2; tests compare both paths.
  void use_avx2(bool on) { avx2_ = on && cpu_has_avx2(); }

 private:
  const Partition& partition_of(const ChainTable& chain, const Packet& packet) const;
  uint32_t match_partition(const Partition& partition, const Packet& packet) const;
  // Prefetches what the first probes of `partition` read first for `packet` (burst lookups).
  void prefetch_probes(const Partition& partition, const Packet& packet) const;
  // Burst lookups of a chain that is one exact-value set (a /32 blocklist), pipelined; false
  // (nothing done) for any other chain.
  bool exact_set_burst(const ChainTable& chain, std::span<const Packet> packets,
                       std::span<uint32_t> rules) const;
  uint32_t lookup_set(const SetTable& set, const Packet& packet) const;
  uint32_t lookup_tuple(const TupleTable& table, const Packet& packet, uint32_t best) const;
  // Walks `count` (<= kMaxLockstepTrees) tree probes side by side; returns the better of `best`
  // and their matches.
  uint32_t lookup_trees(const Probe* probes, uint32_t count, const Packet& packet,
                        uint32_t best) const;
  static constexpr uint32_t kMaxLockstepTrees = 8;
  template <uint32_t kCount>
  uint32_t walk_trees(const Probe* probes, const Packet& packet, uint32_t best) const;
  bool checks_pass(uint32_t first, uint32_t count, const Packet& packet) const;

  // Checks `mapped` and takes it (and `owner`, the storage it lies in, if any).
  // Pages, as an image maps its blob: the compiler places tree lines by page (decision 0065).
  struct alignas(kPageBytes) BlobPage {
    uint8_t bytes[kPageBytes];
  };
  LoadStatus take(std::span<const uint8_t> mapped, std::unique_ptr<BlobPage[]> owner);

  TableView tables_;
  std::unique_ptr<BlobPage[]> owned_;  // a loaded (copied) blob; none for a mapped one
  std::vector<uint8_t> tree_runs_;     // per probe: tree probes walked together from it (adopt)
  bool avx2_ = cpu_has_avx2();  // trees through lookup_trees_avx2 (runtime/tree_lookup_avx2.cpp)
};

// Blob encoding shared by the compiler (writer) and the loader.
std::span<const uint8_t> blob_magic();
// Tables in the blob layout (runtime/blob_format.hpp; runtime/encode.cpp).
std::vector<uint8_t> encode_tables(const Tables& tables);
// Points `out` at the pools of `blob` after checking its head and directory (runtime/decode.cpp);
// validate() checks the contents.
LoadStatus map_tables(std::span<const uint8_t> blob, TableView& out);

}  // namespace keel::firewall
