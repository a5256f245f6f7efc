// Serializes tables into the blob the runtime loads (layout in runtime/blob_format.hpp).
#include <cstring>

#include "keel/firewall/compiler.hpp"
#include "runtime/blob_format.hpp"

namespace keel::firewall {
namespace {
template <typename T>
void put(std::vector<uint8_t>& out, const T& value) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}
}  // namespace

std::vector<uint8_t> encode_tables(const Tables& tables) {
  std::vector<uint8_t> payload;
  put(payload, tables.conntrack);
  for (const ChainTable& chain : tables.chains) put(payload, chain);
  blob::for_each_pool(tables, [&](const auto& pool) {
    put(payload, static_cast<uint64_t>(pool.size()));
    size_t bytes = pool.size() * sizeof(pool[0]);
    size_t at = payload.size();
    payload.resize(at + bytes);
    if (bytes) std::memcpy(payload.data() + at, pool.data(), bytes);
  });
  put(payload, static_cast<uint64_t>(tables.strings.size()));
  for (const std::string& s : tables.strings) {
    put(payload, static_cast<uint32_t>(s.size()));
    payload.insert(payload.end(), s.begin(), s.end());
  }
  std::vector<uint8_t> out(blob::kMagic, blob::kMagic + sizeof(blob::kMagic));
  put(out, blob::kVersion);
  put(out, uint32_t{0});
  put(out, static_cast<uint64_t>(payload.size()));
  put(out, blob::fnv1a(payload.data(), payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace keel::firewall
