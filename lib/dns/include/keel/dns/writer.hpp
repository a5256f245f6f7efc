// Building DNS messages into a caller's buffer, with name compression
// (RFC 1035 §4.1.4). Writes never pass `limit`; a write that does not fit
// returns false and leaves the position where it was, so a caller can roll a
// whole RRset back with rewind() (which also forgets compression targets
// written after that point).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel::dns {

class MessageWriter {
 public:
  // Names remembered as compression targets, one entry per label position.
  static constexpr std::size_t max_targets = 96;

  MessageWriter(uint8_t* buffer, std::size_t limit) : buf_(buffer), limit_(limit) {}

  std::size_t position() const { return pos_; }
  std::size_t limit() const { return limit_; }
  void set_limit(std::size_t limit) { limit_ = limit; }
  uint8_t* data() { return buf_; }
  void rewind(std::size_t pos);

  bool put8(uint8_t v);
  bool put16(uint16_t v);
  bool put32(uint32_t v);
  bool put_bytes(std::string_view bytes);
  void patch16(std::size_t at, uint16_t v);

  // Writes an uncompressed wire name. With `compress`, the longest suffix
  // already in the message becomes a pointer; either way its labels become
  // targets for later names.
  bool put_name(std::string_view name, bool compress);
  // Remembers a name already in the buffer (the question) as a target.
  void remember_name(std::size_t at, std::string_view name);
  // RDATA of `type`, compressing the names RFC 3597 §4 allows.
  bool put_rdata(uint16_t type, std::string_view rdata);

 private:
  struct Target {
    uint16_t offset;     // where the label sits in the message
    uint16_t remaining;  // uncompressed octets from there to the end of its name
  };
  // Offset of an earlier copy of `suffix`, or 0.
  std::size_t find_target(std::string_view suffix) const;
  bool equals_at(std::size_t offset, std::string_view suffix) const;
  void add_target(std::size_t offset, std::size_t remaining);

  uint8_t* buf_;
  std::size_t limit_;
  std::size_t pos_ = 0;
  Target targets_[max_targets];
  std::size_t target_count_ = 0;
};

}  // namespace keel::dns
