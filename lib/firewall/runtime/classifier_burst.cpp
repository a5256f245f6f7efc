// Burst lookups: the lookup of one packet is a short chain of dependent reads (a set's slot, or
// a tree's root reference, then its lines and leaf), so a lone lookup waits for each miss in
// turn. Here the first read of every probe of kBurst packets is prefetched before any packet is
// looked up, so those misses overlap; the lookups themselves are the single-packet ones. A chain
// that is one exact-value set (a /32 blocklist) takes a tight path instead: each key is hashed
// and its slot prefetched kSetAhead packets before it is probed, with no dispatch per packet.
#include <algorithm>

#include "keel/firewall/classifier.hpp"
#include "runtime/exact_set_probe.hpp"

namespace keel::firewall {
namespace {
// Probes whose first read is prefetched: a partition's leading trees are walked together, and
// a lookup that matches early stops before later probes.
constexpr uint32_t kPrefetchProbes = 4;

inline void prefetch(const void* at) { __builtin_prefetch(at, 0, 3); }

// How many packets ahead of its probe a set key is hashed and its slot prefetched: enough
// misses in flight to cover a memory latency, few enough that the lines stay in L1 until used.
constexpr size_t kSetAhead = 32;
static_assert((kSetAhead & (kSetAhead - 1)) == 0);

// The set lookup of every packet, software-pipelined: the home slot of packet i + kSetAhead is
// prefetched while packet i is probed. `key` reads the set's field, `passes` its shared checks.
template <typename Key, typename Passes>
void exact_set_pipeline(const ExactSetView& hash, Key key, Passes passes,
                        std::span<const Packet> packets, std::span<uint32_t> rules) {
  const size_t count = packets.size();
  const auto issue = [&](size_t i) { prefetch(&hash.slots[2 * hash.home(key(packets[i]))]); };
  const auto answer = [&](size_t i) {
    const uint32_t value = key(packets[i]);
    rules[i] = passes(packets[i]) ? hash.probe(value, hash.home(value)) : kNoRule;
  };
  const size_t ahead = std::min(count, kSetAhead);
  for (size_t i = 0; i < ahead; ++i) issue(i);
  for (size_t i = 0; i + ahead < count; ++i) issue(i + ahead), answer(i);
  for (size_t i = count - ahead; i < count; ++i) answer(i);
}
}  // namespace

bool Classifier::exact_set_burst(const ChainTable& chain, std::span<const Packet> packets,
                                 std::span<uint32_t> rules) const {
  // One set, or one set for one family and nothing for the other (an IPv4 blocklist: the family
  // dispatch leaves the IPv6 partition empty); then a packet of the other family has no match.
  uint32_t part = chain.first_partition;
  int family_class = -1;  // the class of the family that reaches the set; -1: no dispatch
  if (chain.dispatch_count == 1 && chain.dispatch_field[0] == static_cast<uint8_t>(Field::family) &&
      chain.class_count[0] == 2) {
    const bool first_empty = tables_.partitions[part].probe_count == 0;
    if (!first_empty && tables_.partitions[part + 1].probe_count != 0) return false;
    family_class = first_empty ? 1 : 0;
    part += static_cast<uint32_t>(family_class);
  } else if (chain.dispatch_count != 0) {
    return false;
  }
  const Partition& partition = tables_.partitions[part];
  if (partition.probe_count != 1 || tables_.probes[partition.first_probe].kind != ProbeKind::set)
    return false;
  const SetTable& set = tables_.sets[tables_.probes[partition.first_probe].index];
  if (set.kind != SetKind::exact_hash) return false;
  const ExactSetView hash(tables_, set);
  const uint8_t* family_map = tables_.class_maps.data() + chain.class_maps_first;
  const auto passes = [&](const Packet& p) {
    return (family_class < 0 || family_map[p.family] == family_class) &&
           (set.check_count == 0 || checks_pass(set.first_check, set.check_count, p));
  };
  // The field read specialised for addresses (blocklists), so the loop has no switch.
  switch (static_cast<Field>(set.field)) {
    case Field::saddr:
      exact_set_pipeline(
          hash, [](const Packet& p) { return p.saddr; }, passes, packets, rules);
      break;
    case Field::daddr:
      exact_set_pipeline(
          hash, [](const Packet& p) { return p.daddr; }, passes, packets, rules);
      break;
    default: {
      const Field field = static_cast<Field>(set.field);
      exact_set_pipeline(
          hash, [field](const Packet& p) { return field_value(p, field); }, passes, packets, rules);
    }
  }
  return true;
}

void Classifier::prefetch_probes(const Partition& partition, const Packet& packet) const {
  const uint32_t end = partition.first_probe + std::min(partition.probe_count, kPrefetchProbes);
  for (uint32_t p = partition.first_probe; p < end; ++p) {
    const Probe& probe = tables_.probes[p];
    switch (probe.kind) {
      case ProbeKind::set: {
        const SetTable& set = tables_.sets[probe.index];
        const uint32_t v = field_value(packet, static_cast<Field>(set.field));
        const int bits = field_bits(static_cast<Field>(set.field));
        if (set.kind == SetKind::exact_hash)
          prefetch(&tables_.keys[set.first + 2 * (exact_hash(v) & (set.count - 1))]);
        if (set.kind == SetKind::intervals && set.index_bits) {
          prefetch(&tables_.keys[set.index_first + (v >> (bits - set.index_bits))]);
        }
        if (set.kind == SetKind::direct) prefetch(&tables_.values[set.first + v]);
        break;
      }
      case ProbeKind::tuple: {
        const TupleTable& table = tables_.tuples[probe.index];
        const uint64_t h = tuple_hash(tuple_key(packet, table.lengths));
        const uint32_t bucket =
            table.bucket_bits == 0 ? 0 : static_cast<uint32_t>(h >> (64 - table.bucket_bits));
        prefetch(&tables_.keys[table.offsets_first + bucket]);
        break;
      }
      case ProbeKind::tree: {
        const TreeTable& tree = tables_.trees[probe.index];
        const uint32_t key[kTupleFields] = {packet.saddr, packet.daddr, packet.sport, packet.dport,
                                            packet.proto};
        const uint32_t slot = leading_bits(
            key[tree.root_field], field_bits(kTupleFieldList[tree.root_field]), tree.root_bits);
        prefetch(&tables_.tree_roots[tree.roots_first + slot]);
        break;
      }
    }
  }
}

void Classifier::first_match_burst(ChainKind kind, Hook hook, std::span<const Packet> packets,
                                   std::span<uint32_t> rules) const {
  const ChainTable& chain = tables_.chains[chain_slot(kind, hook)];
  const size_t count = std::min(packets.size(), rules.size());
  if (!chain.present) {
    std::fill(rules.begin(), rules.begin() + static_cast<std::ptrdiff_t>(count), kNoRule);
    return;
  }
  if (exact_set_burst(chain, packets.first(count), rules.first(count))) return;
  const Partition* partitions[kBurst];
  for (size_t at = 0; at < count; at += kBurst) {
    const size_t n = std::min(kBurst, count - at);
    for (size_t i = 0; i < n; ++i) {
      partitions[i] = &partition_of(chain, packets[at + i]);
      prefetch_probes(*partitions[i], packets[at + i]);
    }
    for (size_t i = 0; i < n; ++i) rules[at + i] = match_partition(*partitions[i], packets[at + i]);
  }
}

void Classifier::classify_burst(ChainKind kind, Hook hook, std::span<const Packet> packets,
                                std::span<Verdict> verdicts) const {
  const ChainTable& chain = tables_.chains[chain_slot(kind, hook)];
  uint32_t rules[kBurst];
  for (size_t at = 0; at < packets.size() && at < verdicts.size(); at += kBurst) {
    const size_t n = std::min({kBurst, packets.size() - at, verdicts.size() - at});
    first_match_burst(kind, hook, packets.subspan(at, n), std::span(rules, n));
    for (size_t i = 0; i < n; ++i) {
      verdicts[at + i] = rules[i] == kNoRule
                             ? Verdict{chain.present ? chain.policy : Action::accept, kNoRule}
                             : Verdict{rule_action(tables_.rules[rules[i]]), rules[i]};
    }
  }
}

}  // namespace keel::firewall
