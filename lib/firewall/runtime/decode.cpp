// Decodes a table blob with bounds checks on every read; validation of contents follows.
#include <cstring>

#include "keel/firewall/classifier.hpp"
#include "runtime/blob_format.hpp"

namespace keel::firewall {
namespace {
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data) : data_(data) {}
  template <typename T>
  bool get(T& value) {
    if (data_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool bytes(void* out, uint64_t size) {
    if (data_.size() - pos_ < size) return false;
    if (size) std::memcpy(out, data_.data() + pos_, size);
    pos_ += size;
    return true;
  }
  uint64_t remaining() const { return data_.size() - pos_; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};
}  // namespace

std::span<const uint8_t> blob_magic() { return {blob::kMagic, sizeof(blob::kMagic)}; }

LoadStatus decode_tables(std::span<const uint8_t> data, Tables& out) {
  if (data.size() < blob::kHeaderSize) return LoadStatus::truncated;
  if (std::memcmp(data.data(), blob::kMagic, sizeof(blob::kMagic)) != 0)
    return LoadStatus::bad_magic;
  Reader header(data.subspan(sizeof(blob::kMagic)));
  uint32_t version = 0, reserved = 0;
  uint64_t payload_size = 0, checksum = 0;
  header.get(version);
  header.get(reserved);
  header.get(payload_size);
  header.get(checksum);
  if (version != blob::kVersion) return LoadStatus::bad_version;
  uint64_t available = data.size() - blob::kHeaderSize;
  if (payload_size > available) return LoadStatus::truncated;
  if (payload_size < available) return LoadStatus::trailing_bytes;
  std::span<const uint8_t> payload = data.subspan(blob::kHeaderSize);
  if (blob::fnv1a(payload.data(), payload.size()) != checksum) return LoadStatus::bad_checksum;

  Reader in(payload);
  Tables t;
  if (!in.get(t.conntrack)) return LoadStatus::truncated;
  for (ChainTable& chain : t.chains)
    if (!in.get(chain)) return LoadStatus::truncated;
  bool ok = true;
  blob::for_each_pool(t, [&](auto& pool) {
    uint64_t count = 0;
    if (!ok || !in.get(count)) {
      ok = false;
      return;
    }
    // Refuse counts the remaining bytes cannot hold before allocating anything.
    if (count > in.remaining() / sizeof(pool[0])) {
      ok = false;
      return;
    }
    pool.resize(count);
    ok = in.bytes(pool.data(), count * sizeof(pool[0]));
  });
  if (!ok) return LoadStatus::truncated;
  uint64_t strings = 0;
  if (!in.get(strings) || strings > in.remaining() / sizeof(uint32_t)) return LoadStatus::truncated;
  t.strings.resize(strings);
  for (std::string& s : t.strings) {
    uint32_t length = 0;
    if (!in.get(length) || length > in.remaining()) return LoadStatus::truncated;
    s.resize(length);
    in.bytes(s.data(), length);
  }
  if (in.remaining() != 0) return LoadStatus::trailing_bytes;
  out = std::move(t);
  return LoadStatus::ok;
}

}  // namespace keel::firewall
