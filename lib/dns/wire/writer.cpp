// Message building with name compression.
#include "keel/dns/writer.hpp"

#include <cstring>

#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/rdata.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {
constexpr uint16_t pointer_bits = 0xc000;
}

void MessageWriter::rewind(std::size_t pos) {
  pos_ = pos;
  while (target_count_ > 0 && targets_[target_count_ - 1].offset >= pos) --target_count_;
}

bool MessageWriter::put8(uint8_t v) {
  if (limit_ - pos_ < 1) return false;
  buf_[pos_++] = v;
  return true;
}

bool MessageWriter::put16(uint16_t v) {
  if (limit_ - pos_ < 2) return false;
  store16(buf_ + pos_, v);
  pos_ += 2;
  return true;
}

bool MessageWriter::put32(uint32_t v) {
  if (limit_ - pos_ < 4) return false;
  store32(buf_ + pos_, v);
  pos_ += 4;
  return true;
}

bool MessageWriter::put_bytes(std::string_view bytes) {
  if (bytes.empty()) return true;  // an empty view may have no data pointer at all
  if (limit_ - pos_ < bytes.size()) return false;
  std::memcpy(buf_ + pos_, bytes.data(), bytes.size());
  pos_ += bytes.size();
  return true;
}

void MessageWriter::patch16(std::size_t at, uint16_t v) { store16(buf_ + at, v); }

bool MessageWriter::equals_at(std::size_t offset, std::string_view suffix) const {
  // Targets were written by this writer (or checked as the question), so
  // pointers in the buffer point backwards and the walk ends.
  std::size_t i = 0;
  for (;;) {
    const uint8_t len = buf_[offset];
    if ((len & 0xc0) == 0xc0) {
      offset = std::size_t(len & 0x3f) << 8 | buf_[offset + 1];
      continue;
    }
    if (octet(suffix, i) != len) return false;
    for (std::size_t k = 1; k <= len; ++k) {
      if (ascii_lower(buf_[offset + k]) != ascii_lower(octet(suffix, i + k))) return false;
    }
    if (len == 0) return true;
    i += 1 + len;
    offset += 1 + len;
  }
}

std::size_t MessageWriter::find_target(std::string_view suffix) const {
  for (std::size_t t = 0; t < target_count_; ++t) {
    if (targets_[t].remaining == suffix.size() && equals_at(targets_[t].offset, suffix)) {
      return targets_[t].offset;
    }
  }
  return 0;
}

void MessageWriter::add_target(std::size_t offset, std::size_t remaining) {
  if (offset > max_compression_offset || target_count_ == max_targets) return;
  targets_[target_count_++] = {uint16_t(offset), uint16_t(remaining)};
}

void MessageWriter::remember_name(std::size_t at, std::string_view name) {
  for (std::size_t i = 0; i < name.size() && octet(name, i) != 0; i += 1 + octet(name, i)) {
    add_target(at + i, name.size() - i);
  }
}

bool MessageWriter::put_name(std::string_view name, bool compress) {
  const std::size_t start = pos_;
  const std::size_t targets_before = target_count_;
  std::size_t i = 0;
  while (i < name.size() && octet(name, i) != 0) {
    const std::string_view suffix = name.substr(i);
    if (compress) {
      if (std::size_t at = find_target(suffix); at != 0) {
        if (!put16(uint16_t(pointer_bits | at))) break;
        return true;
      }
    }
    const uint8_t len = octet(name, i);
    if (limit_ - pos_ < 1u + len) break;
    add_target(pos_, suffix.size());
    std::memcpy(buf_ + pos_, name.data() + i, 1 + len);
    pos_ += 1 + len;
    i += 1 + len;
  }
  if (i < name.size() && octet(name, i) == 0 && put8(0)) return true;
  pos_ = start;
  target_count_ = targets_before;
  return false;
}

bool MessageWriter::put_rdata(uint16_t type, std::string_view rdata) {
  const std::size_t start = pos_;
  if (!put16(0)) return false;  // RDLENGTH, patched below
  bool ok = true;
  if (!has_compressed_names(type)) {
    ok = put_bytes(rdata);
  } else {
    const TypeInfo* info = type_info(type);
    std::size_t p = 0;
    for (std::size_t f = 0; ok && f < max_fields && info->fields[f] != Field::end; ++f) {
      if (info->fields[f] == Field::compressed_name) {
        const std::size_t n = name_length(rdata.substr(p));
        ok = put_name(rdata.substr(p, n), true);
        p += n;
      } else {
        const std::size_t n = info->fields[f] == Field::u16 ? 2 : 4;  // see read_rdata
        ok = put_bytes(rdata.substr(p, n));
        p += n;
      }
    }
  }
  if (!ok) {
    rewind(start);
    return false;
  }
  patch16(start, uint16_t(pos_ - start - 2));
  return true;
}

}  // namespace keel::dns
