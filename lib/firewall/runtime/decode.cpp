// Maps a table blob: checks its head (magic, version, size, checksum) and that every pool the
// directory names is aligned, inside the blob and overlaps no other, then points a TableView at
// the pools where they lie. Nothing is copied; validate() checks the contents a lookup will trust.
#include <algorithm>
#include <cstring>

#include "keel/firewall/classifier.hpp"
#include "runtime/blob_format.hpp"

namespace keel::firewall {

std::span<const uint8_t> blob_magic() { return {blob::kMagic, sizeof(blob::kMagic)}; }

LoadStatus map_tables(std::span<const uint8_t> data, TableView& out) {
  if (data.size() < sizeof(blob::Header)) return LoadStatus::truncated;
  if (std::memcmp(data.data(), blob::kMagic, sizeof(blob::kMagic)) != 0)
    return LoadStatus::bad_magic;
  blob::Header header;
  std::memcpy(&header, data.data(), sizeof(header));
  if (header.version != blob::kVersion) return LoadStatus::bad_version;
  if (header.size > data.size() || data.size() < blob::kHeadSize) return LoadStatus::truncated;
  if (header.size < data.size()) return LoadStatus::trailing_bytes;
  if (reinterpret_cast<uintptr_t>(data.data()) % blob::kAlign != 0) return LoadStatus::misaligned;
  if (blob::head_checksum(data.data()) != header.checksum) return LoadStatus::bad_checksum;
  if (header.pool_count != blob::kPoolCount) return LoadStatus::bad_size;

  blob::PoolRef refs[blob::kPoolCount];
  std::memcpy(refs, data.data() + blob::kDirectoryOffset, sizeof(refs));
  // Pools lie after the head, each aligned for its records, in any order (the compiler's is
  // blob::kPlacement) but without overlapping: checked on their extents sorted below.
  std::pair<uint64_t, uint64_t> extents[blob::kPoolCount];  // (offset, end)
  uint32_t index = 0;
  bool ok = true;
  const auto place = [&](auto& pool) {
    using Record = typename std::remove_reference_t<decltype(pool)>::element_type;
    const blob::PoolRef ref = refs[index];
    if (!ok || ref.offset % blob::kAlign != 0 || ref.offset < blob::kHeadSize ||
        ref.offset > data.size() || ref.count > (data.size() - ref.offset) / sizeof(Record)) {
      ok = false;
      return;
    }
    pool = {reinterpret_cast<const Record*>(data.data() + ref.offset), ref.count};
    extents[index++] = {ref.offset, ref.offset + ref.count * sizeof(Record)};
  };
  TableView t;
  std::memcpy(t.chains.data(), data.data() + blob::kChainsOffset, sizeof(t.chains));
  t.conntrack = header.conntrack;
  blob::for_each_pool(t, place);
  std::span<const uint32_t> string_offsets;
  std::span<const char> string_bytes;
  place(string_offsets);
  place(string_bytes);
  if (!ok) return LoadStatus::bad_size;
  std::sort(std::begin(extents), std::end(extents));
  for (uint32_t i = 1; i < blob::kPoolCount; ++i)
    if (extents[i].first < extents[i - 1].second) return LoadStatus::bad_size;
  if (extents[blob::kPoolCount - 1].second != data.size()) return LoadStatus::trailing_bytes;
  t.strings = StringTable(string_offsets, string_bytes);
  out = t;
  return LoadStatus::ok;
}

}  // namespace keel::firewall
