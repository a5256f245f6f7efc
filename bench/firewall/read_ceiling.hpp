#pragma once
// The machine's own ceiling for a one-read table lookup: independent random 8-byte reads over a
// table of a given size, as many per second as one core manages (the read addresses come from
// an array read in order, as the classifier's packets do). Large-table figures are reported
// beside it and as a fraction of it: memory-bound results differ between machines of one kind.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace keel::firewall::bench {

class ReadCeiling {
 public:
  ReadCeiling(size_t table_bytes, size_t reads, uint32_t seed);
  // Reads per second over one window of at least `seconds`.
  double window(double seconds);

 private:
  std::vector<uint64_t> table_;
  std::vector<uint32_t> indices_;
  uint64_t sink_ = 0;
};

}  // namespace keel::firewall::bench
