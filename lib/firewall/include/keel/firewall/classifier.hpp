#pragma once
// The runtime classifier: loads a table blob (validating every byte it will trust) and
// answers first-match verdicts. Runtime-safe: no I/O, no threads, no exceptions thrown.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "keel/firewall/packet.hpp"
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
};
const char* to_string(LoadStatus status);

// Whether the CPU has AVX2 and BMI1 and the OS saves the AVX registers (CPUID, XCR0).
bool cpu_has_avx2();

// Checks every index, count and enum in `tables` so lookups can never leave their pools.
LoadStatus validate(const Tables& tables);

class Classifier {
 public:
  // Decodes and validates a blob; on failure the classifier stays empty (accepts everything).
  LoadStatus load(std::span<const uint8_t> blob);
  // Adopts tables built in-process (validated the same way).
  LoadStatus adopt(Tables tables);

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

  const Tables& tables() const { return tables_; }
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

  Tables tables_;
  std::vector<uint8_t> tree_runs_;  // per probe: tree probes walked together from it (adopt)
  bool avx2_ = cpu_has_avx2();  // trees through lookup_trees_avx2 (runtime/tree_lookup_avx2.cpp)
};

// Blob encoding shared by the compiler (writer) and the loader.
std::span<const uint8_t> blob_magic();
LoadStatus decode_tables(std::span<const uint8_t> blob, Tables& out);

}  // namespace keel::firewall
