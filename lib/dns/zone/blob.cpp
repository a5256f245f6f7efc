#include "keel/dns/blob.hpp"

#include "keel/dns/name.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

constexpr std::string_view magic = "KEELDNS1";

void put16(std::string& out, uint16_t v) {
  uint8_t b[2];
  store16(b, v);
  out.append(reinterpret_cast<const char*>(b), 2);
}
void put32(std::string& out, uint32_t v) {
  uint8_t b[4];
  store32(b, v);
  out.append(reinterpret_cast<const char*>(b), 4);
}

// A bounds-checked reader: every take fails once the blob is exhausted.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool take(std::size_t n, std::string_view& out) {
    if (data_.size() - pos_ < n) return false;
    out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool u8(uint8_t& v) {
    std::string_view s;
    if (!take(1, s)) return false;
    v = octet(s, 0);
    return true;
  }
  bool u16(uint16_t& v) {
    std::string_view s;
    if (!take(2, s)) return false;
    v = load16(s, 0);
    return true;
  }
  bool u32(uint32_t& v) {
    std::string_view s;
    if (!take(4, s)) return false;
    v = load32(s, 0);
    return true;
  }
  bool name(std::string& out) {
    uint8_t length = 0;
    std::string_view s;
    if (!u8(length) || !take(length, s) || !is_valid_name(s)) return false;
    out.assign(s);
    return true;
  }
  bool at_end() const { return pos_ == data_.size(); }
  std::size_t remaining() const { return data_.size() - pos_; }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string encode_blob(const std::vector<ZoneData>& zones) {
  std::string out(magic);
  put32(out, uint32_t(zones.size()));
  for (const ZoneData& zone : zones) {
    out += static_cast<char>(zone.origin.size());
    out += zone.origin;
    put32(out, uint32_t(zone.records.size()));
    for (const ZoneRecord& r : zone.records) {
      out += static_cast<char>(r.owner.size());
      out += r.owner;
      put16(out, r.type);
      put32(out, r.ttl);
      put16(out, uint16_t(r.rdata.size()));
      out += r.rdata;
    }
  }
  return out;
}

bool decode_blob(std::string_view blob, std::vector<ZoneData>& zones, std::string& error) {
  Reader in(blob);
  std::string_view head;
  uint32_t zone_count = 0;
  if (!in.take(magic.size(), head) || head != magic || !in.u32(zone_count)) {
    error = "not a Keel zone blob (bad header)";
    return false;
  }
  // The smallest zone is a root origin and no records: 5 octets.
  constexpr std::size_t min_zone = 5, min_record = 1 + 1 + 2 + 4 + 2;
  if (zone_count > in.remaining() / min_zone) {
    error = "zone blob: more zones than the blob can hold";
    return false;
  }
  zones.clear();
  zones.reserve(zone_count);
  for (uint32_t z = 0; z < zone_count; ++z) {
    ZoneData zone;
    uint32_t count = 0;
    if (!in.name(zone.origin) || !in.u32(count) || count > in.remaining() / min_record) {
      error = "zone blob: zone " + std::to_string(z) + " is malformed";
      return false;
    }
    zone.records.resize(count);
    for (ZoneRecord& r : zone.records) {
      uint16_t length = 0;
      std::string_view rdata;
      if (!in.name(r.owner) || !in.u16(r.type) || !in.u32(r.ttl) || !in.u16(length) ||
          !in.take(length, rdata)) {
        error = "zone blob: a record of zone " + name_to_text(zone.origin) + " is malformed";
        return false;
      }
      r.rdata.assign(rdata);
    }
    zones.push_back(std::move(zone));
  }
  if (!in.at_end()) {
    error = "zone blob: data after the last zone";
    return false;
  }
  return true;
}

}  // namespace keel::dns
