// Differential test: classifier verdicts (through an encoded and reloaded blob) against the
// linear first-match walk of the syntax tree, over random rule sets and packets. Fixed seed.
#include <gtest/gtest.h>

#include <bit>
#include <span>

#include "keel/firewall/classifier.hpp"
#include "keel/firewall/compiler.hpp"
#include "linear_evaluator.hpp"
#include "random_rules.hpp"

namespace keel::firewall::testing {
namespace {
constexpr uint32_t kSeed = 20240601;
constexpr int kRuleSets = 300;
constexpr int kPacketsPerSet = 400;
constexpr int kTreeRules = 1500;  // rules per set in the decision-tree test (partitions get trees)
constexpr int kTreeRuleSets = 12;
constexpr int kAddressSetRules =
    300;  // per block of the address-set test (sets get hashes and indexes)
constexpr int kAddressSetRuleSets = 20;
// Packets per classify_burst call in the burst check: not a multiple of Classifier::kBurst, so
// partial bursts are exercised too.
constexpr size_t kBurstCall = 37;

// 5-tuple rules in the ClassBench shape (prefixes of a few sites, port values and ranges):
// they land in packed tuple tables, many shadow one another, buckets overflow.
constexpr int kClassBenchLengths[] = {32, 32, 24, 24, 28, 20, 16, 8, 0};
// Mostly specific addresses, an eighth wildcard: a partition's groups fit one tree.
constexpr int kSpecificLengths[] = {32, 32, 24, 24, 28, 20, 16, 0};
std::string classbench_ruleset(std::mt19937& rng, int rules,
                               std::span<const int> lengths = kClassBenchLengths) {
  const uint32_t sites[] = {0x0A000000u, 0x0A010000u, 0xC0A80000u, 0xAC100000u};
  auto prefix = [&](int length) {
    uint32_t a = (sites[rng() % 4] | (rng() & 0x3F3F)) & (length ? ~0u << (32 - length) : 0);
    return std::to_string(a >> 24) + "." + std::to_string(a >> 16 & 255) + "." +
           std::to_string(a >> 8 & 255) + "." + std::to_string(a & 255) + "/" +
           std::to_string(length);
  };
  auto ports = [&]() -> std::string {
    switch (rng() % 4) {
      case 0:
        return "";
      case 1:
        return std::to_string(rng() % 8);
      case 2:
        return "1024-65535";
      default: {
        uint32_t lo = rng() % 10;
        return std::to_string(lo) + "-" + std::to_string(lo + rng() % 5);
      }
    }
  };
  std::string text = "chain f hook forward policy accept {\n";
  for (int r = 0; r < rules; ++r) {
    std::string rule = "  ";
    if (int l = lengths[rng() % lengths.size()]) rule += "ip saddr " + prefix(l) + " ";
    if (int l = lengths[rng() % lengths.size()]) rule += "ip daddr " + prefix(l) + " ";
    const char* proto = rng() % 2 ? "tcp" : "udp";
    std::string sp = ports(), dp = ports();
    if (!sp.empty()) rule += std::string(proto) + " sport " + sp + " ";
    if (!dp.empty()) rule += std::string(proto) + " dport " + dp + " ";
    if (sp.empty() && dp.empty() && rng() % 3) rule += std::string(proto) + " ";
    text += rule + (rng() % 2 ? "accept\n" : "drop\n");
  }
  return text + "}\n";
}

Packet classbench_packet(std::mt19937& rng) {
  const uint32_t sites[] = {0x0A000000u, 0x0A010000u, 0xC0A80000u, 0xAC100000u};
  Packet p;
  p.proto = rng() % 2 ? kProtoTcp : kProtoUdp;
  p.saddr = sites[rng() % 4] | (rng() & 0x3F3F);
  p.daddr = sites[rng() % 4] | (rng() & 0x3F3F);
  p.sport = static_cast<uint16_t>(rng() % 3 ? rng() % 16 : rng());
  p.dport = static_cast<uint16_t>(rng() % 3 ? rng() % 16 : rng());
  return p;
}

template <typename MakeRules, typename MakePacket>
void compare(MakeRules make_rules, MakePacket make_packet, uint32_t seed, int sets) {
  std::mt19937 rng(seed);
  size_t compared = 0;
  for (int s = 0; s < sets; ++s) {
    std::string text = make_rules(rng);
    CompileResult result = compile_source(text, "random.fw");
    ASSERT_TRUE(result.ruleset) << (result.errors.empty() ? "" : result.errors[0]) << "\n" << text;
    Classifier classifier, sse2;  // the second tests tree leaves with SSE2 even on an AVX2 CPU
    const std::vector<uint8_t> blob = encode_tables(build_tables(*result.ruleset));
    ASSERT_EQ(classifier.load(blob), LoadStatus::ok);
    ASSERT_EQ(sse2.load(blob), LoadStatus::ok);
    sse2.use_avx2(false);
    std::vector<Packet> packets;
    for (int i = 0; i < kPacketsPerSet; ++i) {
      Packet packet = make_packet(rng);
      packets.push_back(packet);
      LinearVerdict want =
          linear_first_match(*result.program, ChainKind::filter, Hook::forward, packet);
      Verdict got = classifier.classify(ChainKind::filter, Hook::forward, packet);
      ASSERT_EQ(got.rule, sse2.classify(ChainKind::filter, Hook::forward, packet).rule)
          << "set " << s << " packet " << i << "\n"
          << text;
      uint32_t got_source =
          got.rule == kNoRule ? kNoRule : classifier.tables().rules[got.rule].source_id;
      ASSERT_EQ(want.action, got.action) << "set " << s << " packet " << i << "\n" << text;
      ASSERT_EQ(want.source_id, got_source) << "set " << s << " packet " << i << "\n" << text;
      ++compared;
    }
    // Burst lookups answer what single lookups answer (checked against the linear walk above).
    std::vector<Verdict> burst(packets.size());
    for (size_t at = 0; at < packets.size(); at += kBurstCall) {
      const size_t n = std::min(kBurstCall, packets.size() - at);
      classifier.classify_burst(ChainKind::filter, Hook::forward, std::span(packets).subspan(at, n),
                                std::span(burst).subspan(at, n));
    }
    for (size_t i = 0; i < packets.size(); ++i) {
      ASSERT_EQ(burst[i], classifier.classify(ChainKind::filter, Hook::forward, packets[i]))
          << "set " << s << " packet " << i;
    }
  }
  EXPECT_EQ(compared, static_cast<size_t>(sets) * kPacketsPerSet);
}

void run(const RandomRulesOptions& options, uint32_t seed, int sets) {
  compare([&](std::mt19937& rng) { return random_ruleset(rng, options); }, random_packet, seed,
          sets);
}

TEST(Differential, SmallRuleSets) { run({.rules = 8, .helper_chains = 1}, kSeed, kRuleSets); }
TEST(Differential, MediumRuleSets) {
  run({.rules = 40, .helper_chains = 2}, kSeed + 1, kRuleSets / 2);
}
TEST(Differential, RunsOfSimilarRules) {
  run({.rules = 80, .helper_chains = 2, .long_runs = true}, kSeed + 2, kRuleSets / 3);
}
// Rules of both families (each rule IPv4, IPv6 or either) against IPv4 and IPv6 packets.
TEST(Differential, BothFamilies) {
  const RandomRulesOptions options{.rules = 40, .helper_chains = 2, .ip6 = true};
  compare([&](std::mt19937& rng) { return random_ruleset(rng, options); },
          random_packet_both_families, kSeed + 7, kRuleSets / 2);
}

TEST(Differential, ClassBenchFiveTuples) {
  compare(
      [](std::mt19937& rng) { return classbench_ruleset(rng, 30 + static_cast<int>(rng() % 300)); },
      classbench_packet, kSeed + 3, kRuleSets / 5);
}

// Set tables at sizes where their large forms are chosen: a /32 blocklist (a hash of key/rule
// pairs) and prefix lists (pairs with a top-bits index whose entries are leaf rules or the first
// segment of a bucket). All addresses lie in 10.0.0.0/20, so packets hit often and one index
// bucket holds hundreds of boundaries (the gallop past the first segment is exercised).
std::string address_set_ruleset(std::mt19937& rng, int rules) {
  auto prefix = [](uint32_t a, int length) {
    a &= length == 0 ? 0 : ~uint32_t{0} << (32 - length);
    return std::to_string(a >> 24) + "." + std::to_string(a >> 16 & 0xFF) + "." +
           std::to_string(a >> 8 & 0xFF) + "." + std::to_string(a & 0xFF) + "/" +
           std::to_string(length);
  };
  auto near = [&] { return 0x0A000000u | (rng() & 0xFFF); };
  std::string text = "chain f hook forward policy accept {\n";
  for (int i = 0; i < rules; ++i)
    text += "  ip saddr " + prefix(near(), 32) + (i % 3 ? " drop\n" : " accept\n");
  for (int i = 0; i < rules; ++i)
    text += "  ip daddr " + prefix(near(), 20 + static_cast<int>(rng() % 13)) +
            (i % 2 ? " drop\n" : " accept\n");
  // Wide prefixes over the whole address space: index buckets that are leaves (one rule or none).
  for (int i = 0; i < rules; ++i) {
    text += "  ip daddr " +
            prefix(0x0B000000u + rng() % 0xC0000000u, 8 + static_cast<int>(rng() % 9)) + " drop\n";
  }
  return text + "}\n";
}

Packet address_set_packet(std::mt19937& rng) {
  Packet p;
  p.proto = kProtoTcp;
  p.saddr = rng() % 2 ? (0x0A000000u | (rng() & 0xFFF)) : static_cast<uint32_t>(rng());
  p.daddr = rng() % 2 ? (0x0A000000u | (rng() & 0xFFF)) : static_cast<uint32_t>(rng());
  p.sport = static_cast<uint16_t>(rng());
  p.dport = static_cast<uint16_t>(rng());
  return p;
}

TEST(Differential, LargeAddressSets) {
  std::mt19937 probe_rng(kSeed + 5);
  CompileResult sample =
      compile_source(address_set_ruleset(probe_rng, kAddressSetRules), "random.fw");
  ASSERT_TRUE(sample.ruleset);
  const Tables tables = build_tables(*sample.ruleset);
  bool hash = false, index = false;
  for (const SetTable& set : tables.sets) {
    hash |= set.kind == SetKind::exact_hash;
    index |= set.kind == SetKind::intervals && set.index_bits > 0;
  }
  ASSERT_TRUE(hash && index) << "the rule sets no longer exercise hash and indexed interval sets";
  compare(
      [](std::mt19937& rng) {
        return address_set_ruleset(rng,
                                   kAddressSetRules + static_cast<int>(rng() % kAddressSetRules));
      },
      address_set_packet, kSeed + 5, kAddressSetRuleSets);
}

// Chains that are one exact-value set (a /32 blocklist on the source or the destination, alone
// or with a condition all its rules share): bursts take the pipelined set path
// (Classifier::exact_set_burst), which must answer what the single lookups do.
std::string blocklist_ruleset(std::mt19937& rng, int rules, int variant) {
  std::string text = "chain f hook forward policy accept {\n";
  for (int i = 0; i < rules; ++i) {
    const uint32_t a = 0x0A000000u | (rng() & 0xFFF);
    const std::string address = std::to_string(a >> 24) + "." + std::to_string(a >> 16 & 0xFF) +
                                "." + std::to_string(a >> 8 & 0xFF) + "." +
                                std::to_string(a & 0xFF);
    text += variant == 1 ? "  ip daddr " + address : "  ip saddr " + address;
    if (variant == 2) text += " ip daddr 10.0.0.0/21";  // a shared check on another field
    text += i % 3 ? " drop\n" : " accept\n";
  }
  return text + "}\n";
}

TEST(Differential, BlocklistBursts) {
  for (int variant = 0; variant < 3; ++variant) {
    std::mt19937 probe_rng(kSeed + 6);
    CompileResult sample =
        compile_source(blocklist_ruleset(probe_rng, kAddressSetRules, variant), "random.fw");
    ASSERT_TRUE(sample.ruleset);
    const Tables tables = build_tables(*sample.ruleset);
    const ChainTable& chain = tables.chains[chain_slot(ChainKind::filter, Hook::forward)];
    // IPv4 rules: the family is the one dispatch field, and the IPv6 partition is empty.
    ASSERT_EQ(chain.dispatch_count, 1) << "variant " << variant;
    ASSERT_EQ(chain.dispatch_field[0], static_cast<uint8_t>(Field::family));
    ASSERT_EQ(tables.probes.size(), 1u) << "variant " << variant;
    ASSERT_EQ(tables.sets.size(), 1u) << "variant " << variant;
    EXPECT_EQ(tables.sets[0].kind, SetKind::exact_hash) << "variant " << variant;
    EXPECT_EQ(tables.sets[0].check_count != 0, variant == 2) << "variant " << variant;
    compare(
        [variant](std::mt19937& rng) {
          return blocklist_ruleset(
              rng, kAddressSetRules + static_cast<int>(rng() % kAddressSetRules), variant);
        },
        address_set_packet, kSeed + 6 + static_cast<uint32_t>(variant), kAddressSetRuleSets / 4);
  }
}

// Whether a tree holds entries of both address groups: specific (/16 or longer) in the source
// and wide in the destination, and the other way round (one tree for a partition, decision
// 0066; group trees never mix them).
bool tree_mixes_groups(const Tables& tables, const TreeTable& tree) {
  bool source = false, destination = false;
  for (uint32_t o = tree.octets_first; o < tree.octets_first + tree.octets_count; ++o) {
    const LeafOctet& octet = tables.leaf_octets[o];
    for (int lane = 0; lane < 8 && octet.rule[lane] != kNoRule; ++lane) {
      const int s = std::popcount(octet.saddr_mask[lane]),
                d = std::popcount(octet.daddr_mask[lane]);
      source |= s >= 16 && d < 16;
      destination |= d >= 16 && s < 16;
    }
  }
  return source && destination;
}

// Large 5-tuple sets with prefixes and port ranges: partitions this big go to HyperSplit trees
// (checked: one tree for all of a partition's groups, with a root cut of its choosing), whose
// splits, copies and pruned leaves must still give the first match.
TEST(Differential, DecisionTreesOnLargeRangeSets) {
  std::mt19937 probe_rng(kSeed + 4);
  CompileResult sample =
      compile_source(classbench_ruleset(probe_rng, kTreeRules, kSpecificLengths), "random.fw");
  ASSERT_TRUE(sample.ruleset);
  const Tables tables = build_tables(*sample.ruleset);
  ASSERT_FALSE(tables.trees.empty()) << "the rule sets no longer exercise trees";
  bool mixed = false;
  for (const TreeTable& tree : tables.trees) mixed |= tree_mixes_groups(tables, tree);
  ASSERT_TRUE(mixed) << "the rule sets no longer exercise one tree for all groups";
  for (const std::span<const int> lengths :
       {std::span<const int>(kSpecificLengths), std::span<const int>(kClassBenchLengths)}) {
    compare(
        [lengths](std::mt19937& rng) {
          return classbench_ruleset(rng, kTreeRules + static_cast<int>(rng() % kTreeRules),
                                    lengths);
        },
        classbench_packet, kSeed + 4, kTreeRuleSets / 2);
  }
}

// Sources-only and destinations-only rules of the same partition, with ranges on the source
// port: one tree for all of them would copy each kind into every split of the other's address,
// so the partition keeps one tree per address group (decision 0066's fallback).
std::string crossed_ruleset(std::mt19937& rng, int rules) {
  auto host = [](uint32_t a) {
    return std::to_string(a >> 24) + "." + std::to_string(a >> 16 & 0xFF) + "." +
           std::to_string(a >> 8 & 0xFF) + "." + std::to_string(a & 0xFF);
  };
  std::string text = "chain f hook forward policy accept {\n";
  for (int i = 0; i < rules; ++i) {
    const uint32_t lo = rng() % 30000;
    text += i % 2 ? "  ip saddr " + host(0x0A000000u | (rng() & 0xFFF))
                  : "  ip daddr " + host(0x0A010000u | (rng() & 0xFFF));
    text += " tcp sport " + std::to_string(lo) + "-" + std::to_string(lo + rng() % 30000);
    text += i % 3 ? " drop\n" : " accept\n";
  }
  return text + "}\n";
}

Packet crossed_packet(std::mt19937& rng) {
  Packet p;
  p.proto = kProtoTcp;
  p.saddr = 0x0A000000u | (rng() & 0xFFF);
  p.daddr = 0x0A010000u | (rng() & 0xFFF);
  p.sport = static_cast<uint16_t>(rng() % 60000);
  p.dport = static_cast<uint16_t>(rng());
  return p;
}

TEST(Differential, DecisionTreesPerGroupWhereOneWouldCopyTooMuch) {
  std::mt19937 probe_rng(kSeed + 7);
  CompileResult sample = compile_source(crossed_ruleset(probe_rng, kTreeRules), "random.fw");
  ASSERT_TRUE(sample.ruleset);
  const Tables tables = build_tables(*sample.ruleset);
  ASSERT_GE(tables.trees.size(), 2u) << "the rule sets no longer exercise group trees";
  for (const TreeTable& tree : tables.trees) ASSERT_FALSE(tree_mixes_groups(tables, tree));
  compare(
      [](std::mt19937& rng) {
        return crossed_ruleset(rng, kTreeRules + static_cast<int>(rng() % kTreeRules));
      },
      crossed_packet, kSeed + 7, kTreeRuleSets / 2);
}

// A burst on a hook without a chain gets the default verdict for every packet, like classify.
TEST(Differential, BurstWithoutChain) {
  CompileResult result =
      compile_source("chain f hook forward policy drop { tcp dport 22 accept }\n", "burst.fw");
  ASSERT_TRUE(result.ruleset);
  Classifier classifier;
  ASSERT_EQ(classifier.adopt(build_tables(*result.ruleset)), LoadStatus::ok);
  std::vector<Packet> packets(Classifier::kBurst + 3);
  packets[1].proto = kProtoTcp;
  packets[1].dport = 22;
  std::vector<Verdict> verdicts(packets.size(), Verdict{Action::reject, 0});
  classifier.classify_burst(ChainKind::filter, Hook::input, packets, verdicts);
  for (const Verdict& v : verdicts) EXPECT_EQ(v, (Verdict{Action::accept, kNoRule}));
  classifier.classify_burst(ChainKind::filter, Hook::forward, packets, verdicts);
  for (size_t i = 0; i < packets.size(); ++i) {
    EXPECT_EQ(verdicts[i], classifier.classify(ChainKind::filter, Hook::forward, packets[i]));
    EXPECT_EQ(verdicts[i].action, i == 1 ? Action::accept : Action::drop);
  }
}

}  // namespace
}  // namespace keel::firewall::testing
