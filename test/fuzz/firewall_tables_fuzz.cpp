// libFuzzer target: arbitrary bytes as a table blob. The loader must reject what is corrupt,
// and whatever it accepts must be safe to classify with. The first input byte chooses whether
// the head's checksum is recomputed, so mutations reach the structural validation too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "keel/firewall/classifier.hpp"
#include "runtime/blob_format.hpp"

using namespace keel::firewall;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool reseal = data[0] & 1;
  std::vector<uint8_t> blob(data + 1, data + size);
  if (reseal && blob.size() >= blob::kHeadSize) {
    const uint64_t sum = blob::head_checksum(blob.data());
    std::memcpy(blob.data() + offsetof(blob::Header, checksum), &sum, sizeof(sum));
  }
  // Both ways in: a copy (pushed blobs) and in place (compiled-in blobs, on a cache line).
  Classifier copied;
  const LoadStatus status = copied.load(blob);
  if (status != LoadStatus::ok) return 0;
  std::unique_ptr<uint8_t, decltype(&std::free)> placed(
      static_cast<uint8_t*>(std::aligned_alloc(64, (blob.size() + 63) / 64 * 64)), &std::free);
  std::memcpy(placed.get(), blob.data(), blob.size());
  Classifier classifier;
  if (classifier.map({placed.get(), blob.size()}) != status) __builtin_trap();  // must agree
  uint32_t seed = static_cast<uint32_t>(size);
  std::vector<Packet> packets;
  for (int i = 0; i < 64; ++i) {
    seed = seed * 1664525u + 1013904223u;
    Packet p;
    p.saddr = seed;
    p.daddr = seed * 7;
    p.sport = static_cast<uint16_t>(seed >> 3);
    p.dport = static_cast<uint16_t>(seed >> 11);
    p.proto = static_cast<uint8_t>(seed >> 24);
    p.iif = static_cast<uint8_t>(seed >> 5);
    p.oif = static_cast<uint8_t>(seed >> 13);
    p.ct_state = static_cast<uint8_t>(seed >> 29);
    p.ttl = static_cast<uint8_t>(seed >> 17);
    p.length = static_cast<uint16_t>(seed >> 9);
    classifier.classify(static_cast<ChainKind>(i & 1), static_cast<Hook>(i % kHookCount), p);
    packets.push_back(p);
  }
  // Burst lookups read the same tables through their own prefetch path.
  std::vector<Verdict> verdicts(packets.size());
  for (int hook = 0; hook < kHookCount; ++hook)
    classifier.classify_burst(ChainKind::filter, static_cast<Hook>(hook), packets, verdicts);
  return 0;
}
