// libFuzzer target: arbitrary bytes as a table blob. The loader must reject what is corrupt,
// and whatever it accepts must be safe to classify with. The first input byte chooses whether
// the checksum is recomputed, so mutations reach the structural validation too.
#include <cstdint>
#include <cstring>
#include <vector>

#include "keel/firewall/classifier.hpp"
#include "runtime/blob_format.hpp"

using namespace keel::firewall;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool reseal = data[0] & 1;
  std::vector<uint8_t> blob(data + 1, data + size);
  if (reseal && blob.size() >= blob::kHeaderSize) {
    uint64_t sum = blob::fnv1a(blob.data() + blob::kHeaderSize, blob.size() - blob::kHeaderSize);
    std::memcpy(blob.data() + blob::kHeaderSize - sizeof(sum), &sum, sizeof(sum));
  }
  Classifier classifier;
  if (classifier.load(blob) != LoadStatus::ok) return 0;
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
