// Serializes tables into the blob the runtime uses in place (layout in runtime/blob_format.hpp):
// every pool where a lookup will read it, so loading is checking, not copying.
#include <cstring>

#include "keel/firewall/classifier.hpp"
#include "runtime/blob_format.hpp"

namespace keel::firewall {
namespace {

// Appends `count` records at the next aligned offset and enters them in the directory. The tree
// lines, which the compiler placed by page, start on a page unless they all fit in the rest of
// the current one.
void put_pool(std::vector<uint8_t>& out, uint32_t index, const void* data, uint64_t count,
              uint64_t record_size) {
  uint64_t offset = blob::align_up(out.size());
  if (index == blob::kTreeLinesPool && offset % kPageBytes + count * record_size > kPageBytes)
    offset = (offset + kPageBytes - 1) / kPageBytes * kPageBytes;
  const blob::PoolRef ref{offset, count};
  std::memcpy(out.data() + blob::kDirectoryOffset + index * sizeof(ref), &ref, sizeof(ref));
  out.resize(offset + count * record_size, 0);
  if (count) std::memcpy(out.data() + offset, data, count * record_size);
}

}  // namespace

std::vector<uint8_t> encode_tables(const Tables& tables) {
  std::vector<uint8_t> out(blob::kHeadSize, 0);
  std::memcpy(out.data() + blob::kChainsOffset, tables.chains.data(), sizeof(tables.chains));
  struct Pending {
    const void* data;
    uint64_t count, record_size;
  };
  Pending pools[blob::kPoolCount];
  uint32_t index = 0;
  blob::for_each_pool(tables, [&](const auto& pool) {
    pools[index++] = {pool.data(), pool.size(), sizeof(pool[0])};
  });
  std::vector<uint32_t> offsets{0};
  std::vector<char> bytes;
  for (const std::string& s : tables.strings) {
    bytes.insert(bytes.end(), s.begin(), s.end());
    offsets.push_back(static_cast<uint32_t>(bytes.size()));
  }
  pools[blob::kStringOffsets] = {offsets.data(), offsets.size(), sizeof(uint32_t)};
  pools[blob::kStringBytes] = {bytes.data(), bytes.size(), 1};
  for (const uint32_t at : blob::kPlacement)
    put_pool(out, at, pools[at].data, pools[at].count, pools[at].record_size);

  blob::Header header{};
  std::memcpy(header.magic, blob::kMagic, sizeof(blob::kMagic));
  header.version = blob::kVersion;
  header.pool_count = blob::kPoolCount;
  header.size = out.size();
  header.conntrack = tables.conntrack;
  std::memcpy(out.data(), &header, sizeof(header));
  header.checksum = blob::head_checksum(out.data());
  std::memcpy(out.data(), &header, sizeof(header));
  return out;
}

}  // namespace keel::firewall
