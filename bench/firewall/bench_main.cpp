// firewall_bench gen MIX N OUT [SEED]      write an N-rule set of mix a|b|c|d|f|acl|fw|ipc (mixes.hpp)
// firewall_bench lookup MIX RULES [SEED]   lookups/s of the classifier and the linear evaluator
//                                          (SEED: the packets')
// firewall_bench stats MIX N [SEED]        statistics of a generated acl|fw|ipc set (filter_stats.cpp)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "../../test/firewall/linear_evaluator.hpp"
#include "keel/firewall/classifier.hpp"
#include "keel/firewall/compiler.hpp"
#include "mixes.hpp"

using namespace keel::firewall;
using Clock = std::chrono::steady_clock;

namespace {
constexpr size_t kPackets = 1 << 18;
constexpr double kClassifierSeconds = 1.0;
constexpr int kClassifierWindows = 5;
constexpr double kLinearSeconds = 1.0;
constexpr uint32_t kSeed = 42;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int lookup(const std::string& mix, const std::string& path, uint32_t seed) {
  CompileResult r = compile_file(path);
  if (!r.ruleset) {
    std::cerr << (r.errors.empty() ? "compile failed" : r.errors[0]) << "\n";
    return 1;
  }
  BuildStats stats;
  Tables tables = build_tables(*r.ruleset, &stats);
  size_t rules = tables.rules.size();
  size_t bytes = table_bytes(tables);
  size_t blob = encode_tables(tables).size();
  Classifier classifier;
  if (classifier.adopt(std::move(tables)) != LoadStatus::ok) return 1;
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Packet> packets = bench::generate_packets(mix, text, kPackets, seed);

  // Classifier: the best of several windows, each whole passes over the packet array until its
  // share of the time budget is spent (the 2 cores are shared, so one long average mostly
  // measured the neighbours' load).
  uint64_t sink = 0;
  double classifier_lps = 0;
  for (int w = 0; w < kClassifierWindows; ++w) {
    uint64_t lookups = 0;
    Clock::time_point start = Clock::now();
    do {
      for (const Packet& p : packets) sink += classifier.first_match(ChainKind::filter, Hook::forward, p);
      lookups += packets.size();
    } while (seconds_since(start) < kClassifierSeconds / kClassifierWindows);
    classifier_lps = std::max(classifier_lps, lookups / seconds_since(start));
  }
  Clock::time_point start;

  // Linear first-match on the same packets, also checking the verdicts agree.
  size_t linear = 0, mismatches = 0;
  start = Clock::now();
  while (linear < packets.size() && (linear < 64 || seconds_since(start) < kLinearSeconds)) {
    const Packet& p = packets[linear++];
    auto want = testing::linear_first_match(*r.program, ChainKind::filter, Hook::forward, p);
    Verdict got = classifier.classify(ChainKind::filter, Hook::forward, p);
    uint32_t got_source = got.rule == kNoRule ? kNoRule : classifier.tables().rules[got.rule].source_id;
    mismatches += want.source_id != got_source || want.action != got.action;
  }
  double linear_lps = linear / seconds_since(start);
  std::printf("mix=%s rules=%zu classifier_lps=%.0f linear_lps=%.0f linear_packets=%zu mismatches=%zu "
              "table_bytes=%zu blob_bytes=%zu partitions=%zu set_tables=%zu tuple_tables=%zu trees=%zu sink=%llu\n",
              mix.c_str(), rules, classifier_lps, linear_lps, linear, mismatches, bytes, blob, stats.partitions,
              stats.set_tables, stats.tuple_tables, stats.trees, static_cast<unsigned long long>(sink & 1));
  return mismatches == 0 ? 0 : 3;
}
}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "", mix = argc > 2 ? argv[2] : "";
  const auto seed_at = [&](int i) { return argc > i ? static_cast<uint32_t>(std::stoul(argv[i])) : kSeed; };
  if (!bench::known_mix(mix)) {
    std::cerr << "usage: firewall_bench gen MIX N OUT [SEED] | lookup MIX RULES [SEED] | stats MIX N [SEED]\n";
    return 2;
  }
  if ((argc == 5 || argc == 6) && command == "gen") {
    std::ofstream out(argv[4]);
    out << bench::generate_rules(mix, std::stoul(argv[3]), seed_at(5));
    return out ? 0 : 1;
  }
  if ((argc == 4 || argc == 5) && command == "lookup") return lookup(mix, argv[3], seed_at(4));
  if ((argc == 4 || argc == 5) && command == "stats") return bench::print_filter_stats(mix, std::stoul(argv[3]), seed_at(4));
  std::cerr << "usage: firewall_bench gen MIX N OUT [SEED] | lookup MIX RULES [SEED] | stats MIX N [SEED]\n";
  return 2;
}
