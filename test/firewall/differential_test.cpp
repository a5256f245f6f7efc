// Differential test: classifier verdicts (through an encoded and reloaded blob) against the
// linear first-match walk of the syntax tree, over random rule sets and packets. Fixed seed.
#include <gtest/gtest.h>

#include "keel/firewall/classifier.hpp"
#include "keel/firewall/compiler.hpp"
#include "linear_evaluator.hpp"
#include "random_rules.hpp"

namespace keel::firewall::testing {
namespace {
constexpr uint32_t kSeed = 20240601;
constexpr int kRuleSets = 300;
constexpr int kPacketsPerSet = 400;

void run(const RandomRulesOptions& options, uint32_t seed, int sets) {
  std::mt19937 rng(seed);
  size_t compared = 0;
  for (int s = 0; s < sets; ++s) {
    std::string text = random_ruleset(rng, options);
    CompileResult result = compile_source(text, "random.fw");
    ASSERT_TRUE(result.ruleset) << (result.errors.empty() ? "" : result.errors[0]) << "\n" << text;
    Classifier classifier;
    ASSERT_EQ(classifier.load(encode_tables(build_tables(*result.ruleset))), LoadStatus::ok);
    for (int i = 0; i < kPacketsPerSet; ++i) {
      Packet packet = random_packet(rng);
      LinearVerdict want = linear_first_match(*result.program, ChainKind::filter, Hook::forward, packet);
      Verdict got = classifier.classify(ChainKind::filter, Hook::forward, packet);
      uint32_t got_source = got.rule == kNoRule ? kNoRule : classifier.tables().rules[got.rule].source_id;
      ASSERT_EQ(want.action, got.action) << "set " << s << " packet " << i << "\n" << text;
      ASSERT_EQ(want.source_id, got_source) << "set " << s << " packet " << i << "\n" << text;
      ++compared;
    }
  }
  EXPECT_EQ(compared, static_cast<size_t>(sets) * kPacketsPerSet);
}

TEST(Differential, SmallRuleSets) { run({.rules = 8, .helper_chains = 1}, kSeed, kRuleSets); }
TEST(Differential, MediumRuleSets) { run({.rules = 40, .helper_chains = 2}, kSeed + 1, kRuleSets / 2); }
TEST(Differential, RunsOfSimilarRules) {
  run({.rules = 80, .helper_chains = 2, .long_runs = true}, kSeed + 2, kRuleSets / 3);
}

}  // namespace
}  // namespace keel::firewall::testing
