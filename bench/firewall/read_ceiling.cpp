#include "read_ceiling.hpp"

#include <algorithm>
#include <chrono>
#include <random>

namespace keel::firewall::bench {
namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

ReadCeiling::ReadCeiling(size_t table_bytes, size_t reads, uint32_t seed)
    : table_(std::max<size_t>(1, table_bytes / sizeof(uint64_t))),
      indices_(reads),
      state_(seed | 1ull << 63) {
  std::mt19937_64 rng(seed);
  for (uint64_t& word : table_) word = rng();
  std::uniform_int_distribution<uint32_t> index(0, static_cast<uint32_t>(table_.size() - 1));
  for (uint32_t& i : indices_) i = index(rng);
}

double ReadCeiling::listed_window(double seconds) {
  const Clock::time_point start = Clock::now();
  uint64_t reads = 0, sum = 0;
  do {
    for (uint32_t i : indices_) sum += table_[i];  // independent: no address depends on a read
    reads += indices_.size();
  } while (seconds_since(start) < seconds);
  sink_ += sum;
  return static_cast<double>(reads) / seconds_since(start);
}

double ReadCeiling::generated_window(double seconds) {
  const Clock::time_point start = Clock::now();
  const uint64_t words = table_.size();
  uint64_t reads = 0, sum = 0, x = state_;
  do {
    for (size_t n = 0; n < indices_.size(); ++n) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64 (Marsaglia 2003)
      sum += table_[(x >> 32) * words >> 32];   // the top 32 bits scaled to [0, words)
    }
    reads += indices_.size();
  } while (seconds_since(start) < seconds);
  state_ = x;
  sink_ += sum;
  return static_cast<double>(reads) / seconds_since(start);
}

}  // namespace keel::firewall::bench
