// firewall_bench gen MIX N OUT [SEED]      write an N-rule set of mix a|b|c|d|f|acl|fw|ipc
// (mixes.hpp) firewall_bench lookup MIX RULES [SEED]   lookups/s of the classifier (one packet a
// call, and in
//                                          bursts) and of the mix's 1-rule set in the same
//                                          process, the machine's random-read ceiling over a
//                                          table of the same size, and the linear evaluator
//                                          (SEED: the packets')
// firewall_bench stats MIX N [SEED]        statistics of a generated acl|fw|ipc set
// (filter_stats.cpp)
// firewall_bench packets MIX RULES N OUT [SEED]  the lookup's packets as `keel-fw classify` lines
// (forward hook), for `keel-fw stats RULES OUT`: the lines and pages a lookup reads
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "../../test/firewall/linear_evaluator.hpp"
#include "keel/firewall/classifier.hpp"
#include "keel/firewall/compiler.hpp"
#include "mixes.hpp"
#include "read_ceiling.hpp"

using namespace keel::firewall;
using Clock = std::chrono::steady_clock;

namespace {
constexpr size_t kPackets = 1 << 18;
constexpr int kClassifierWindows = 5;
constexpr size_t kBurstCall = 256;  // packets handed to one first_match_burst call
constexpr uint32_t kSeed = 42;
constexpr const char* kUsage =
    "usage: firewall_bench gen MIX N OUT [SEED] | lookup MIX RULES [SEED] | stats MIX N [SEED] | "
    "packets MIX RULES N OUT [SEED]\n";
// Seconds per measured path (spread over its windows) and for the linear evaluator: 1, or
// FW_BENCH_SECONDS (run.sh's quick run, which only checks that the script works).
const double kClassifierSeconds = [] {
  const char* s = std::getenv("FW_BENCH_SECONDS");
  double v = s ? std::atof(s) : 0;
  return v > 0 ? v : 1.0;
}();
const double kLinearSeconds = kClassifierSeconds;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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
  // The mix's 1-rule set, measured in the same process, its windows between the others': the
  // ratio to it is what the bench reports, and the machine's load moves both alike.
  const std::string base_text = bench::generate_rules(mix, 1, seed);
  CompileResult base_result = compile_source(base_text, "base.fw");
  Classifier base;
  if (!base_result.ruleset || base.adopt(build_tables(*base_result.ruleset)) != LoadStatus::ok)
    return 1;
  const std::vector<Packet> base_packets = bench::generate_packets(mix, base_text, kPackets, seed);

  // The 1-rule set, the classifier one packet a call and in bursts: windows of each in turn
  // (the 2 cores are shared: alternating keeps them under the same load), after one pass that
  // warms the caches.
  // Then the read ceiling over a table of the same size, after them: run in between, it would
  // evict the classifier's tables. The median window of each is reported.
  uint64_t sink = 0;
  std::vector<uint32_t> burst_rules(packets.size());
  const auto burst_pass = [&] {
    for (size_t at = 0; at < packets.size(); at += kBurstCall) {
      const size_t n = std::min(kBurstCall, packets.size() - at);
      classifier.first_match_burst(ChainKind::filter, Hook::forward,
                                   std::span(packets).subspan(at, n),
                                   std::span(burst_rules).subspan(at, n));
    }
  };
  burst_pass();
  const double window = kClassifierSeconds / kClassifierWindows;
  // Lookups per second of `pass` (one pass over `count` packets) over one window.
  const auto rate = [&](auto&& pass, size_t count) {
    uint64_t lookups = 0;
    const Clock::time_point start = Clock::now();
    do {
      pass();
      lookups += count;
    } while (seconds_since(start) < window);
    return lookups / seconds_since(start);
  };
  const auto single_pass = [&](const Classifier& c, const std::vector<Packet>& ps) {
    return [&c, &ps, &sink] {
      for (const Packet& p : ps) sink += c.first_match(ChainKind::filter, Hook::forward, p);
    };
  };
  std::vector<double> base_lps, single_lps, burst_lps, ceiling_lps, generated_lps;
  for (int w = 0; w < kClassifierWindows; ++w) {
    base_lps.push_back(rate(single_pass(base, base_packets), base_packets.size()));
    single_lps.push_back(rate(single_pass(classifier, packets), packets.size()));
    burst_lps.push_back(rate([&] { burst_pass(), sink += burst_rules[w]; }, packets.size()));
  }
  bench::ReadCeiling ceiling(bytes, packets.size(), seed);
  ceiling.listed_window(window);  // warm-up
  for (int w = 0; w < kClassifierWindows; ++w) {
    ceiling_lps.push_back(ceiling.listed_window(window));
    generated_lps.push_back(ceiling.generated_window(window));
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double classifier_lps = median(single_lps);
  size_t burst_mismatches = 0;
  for (size_t i = 0; i < packets.size(); ++i)
    burst_mismatches +=
        burst_rules[i] != classifier.first_match(ChainKind::filter, Hook::forward, packets[i]);
  Clock::time_point start;

  // Linear first-match on the same packets, also checking the verdicts agree.
  size_t linear = 0, mismatches = 0;
  start = Clock::now();
  while (linear < packets.size() && (linear < 64 || seconds_since(start) < kLinearSeconds)) {
    const Packet& p = packets[linear++];
    auto want = testing::linear_first_match(*r.program, ChainKind::filter, Hook::forward, p);
    Verdict got = classifier.classify(ChainKind::filter, Hook::forward, p);
    uint32_t got_source =
        got.rule == kNoRule ? kNoRule : classifier.tables().rules[got.rule].source_id;
    mismatches += want.source_id != got_source || want.action != got.action;
  }
  double linear_lps = linear / seconds_since(start);
  std::printf(
      "mix=%s rules=%zu classifier_lps=%.0f burst_lps=%.0f base_lps=%.0f ceiling_lps=%.0f "
      "ceiling_generated_lps=%.0f burst_mismatches=%zu "
      "linear_lps=%.0f linear_packets=%zu mismatches=%zu "
      "table_bytes=%zu blob_bytes=%zu partitions=%zu set_tables=%zu tuple_tables=%zu trees=%zu "
      "sink=%llu\n",
      mix.c_str(), rules, classifier_lps, median(burst_lps), median(base_lps), median(ceiling_lps),
      median(generated_lps), burst_mismatches, linear_lps, linear, mismatches, bytes, blob,
      stats.partitions, stats.set_tables, stats.tuple_tables, stats.trees,
      static_cast<unsigned long long>(sink & 1));
  return mismatches == 0 && burst_mismatches == 0 ? 0 : 3;
}

// The packets `lookup` measures, as packet lines for keel-fw (classify, stats).
int write_packets(const std::string& mix, const std::string& path, size_t count,
                  const std::string& out_path, uint32_t seed) {
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream out(out_path);
  for (const Packet& p : bench::generate_packets(mix, text, count, seed))
    out << bench::packet_line(p) << "\n";
  return in && out ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "", mix = argc > 2 ? argv[2] : "";
  const auto seed_at = [&](int i) {
    return argc > i ? static_cast<uint32_t>(std::stoul(argv[i])) : kSeed;
  };
  if (!bench::known_mix(mix)) {
    std::cerr << kUsage;
    return 2;
  }
  if ((argc == 5 || argc == 6) && command == "gen") {
    std::ofstream out(argv[4]);
    out << bench::generate_rules(mix, std::stoul(argv[3]), seed_at(5));
    return out ? 0 : 1;
  }
  if ((argc == 4 || argc == 5) && command == "lookup") return lookup(mix, argv[3], seed_at(4));
  if ((argc == 6 || argc == 7) && command == "packets")
    return write_packets(mix, argv[3], std::stoul(argv[4]), argv[5], seed_at(6));
  if ((argc == 4 || argc == 5) && command == "stats") {
    return bench::print_filter_stats(mix, std::stoul(argv[3]), seed_at(4));
  }
  std::cerr << kUsage;
  return 2;
}
