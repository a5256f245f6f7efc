#include "read_ceiling.hpp"

#include <algorithm>
#include <chrono>
#include <random>

namespace keel::firewall::bench {

ReadCeiling::ReadCeiling(size_t table_bytes, size_t reads, uint32_t seed)
    : table_(std::max<size_t>(1, table_bytes / sizeof(uint64_t))), indices_(reads) {
  std::mt19937_64 rng(seed);
  for (uint64_t& word : table_) word = rng();
  std::uniform_int_distribution<uint32_t> index(0, static_cast<uint32_t>(table_.size() - 1));
  for (uint32_t& i : indices_) i = index(rng);
}

double ReadCeiling::window(double seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  uint64_t reads = 0, sum = 0;
  do {
    for (uint32_t i : indices_) sum += table_[i];  // independent: no address depends on a read
    reads += indices_.size();
  } while (std::chrono::duration<double>(Clock::now() - start).count() < seconds);
  sink_ += sum;
  return static_cast<double>(reads) / std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace keel::firewall::bench
