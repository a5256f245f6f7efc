// Formatting into a fixed buffer without the heap or libc state, so a panic
// can print even when the heap, TLS or stdio are what broke.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel {

class FixedWriter {
 public:
  FixedWriter(char* buffer, std::size_t capacity) : buffer_(buffer), capacity_(capacity) {}

  FixedWriter& text(std::string_view s) {
    for (char c : s) put(c);
    return *this;
  }
  // Zero-padded to `digits` hex digits (at least), with a 0x prefix.
  FixedWriter& hex(uint64_t value, int digits = 16) {
    char tmp[16];
    int n = 0;
    do {
      tmp[n++] = "0123456789abcdef"[value & 0xf];
      value >>= 4;
    } while (value != 0 && n < 16);
    text("0x");
    for (int pad = n; pad < digits; ++pad) put('0');
    while (n > 0) put(tmp[--n]);
    return *this;
  }
  FixedWriter& dec(int64_t value) {
    uint64_t magnitude = value < 0 ? 0 - uint64_t(value) : uint64_t(value);
    if (value < 0) put('-');
    return udec(magnitude);
  }
  FixedWriter& udec(uint64_t value) {
    char tmp[20];
    int n = 0;
    do {
      tmp[n++] = char('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (n > 0) put(tmp[--n]);
    return *this;
  }

  std::string_view view() const { return {buffer_, size_}; }
  bool truncated() const { return truncated_; }

 private:
  void put(char c) {
    if (size_ < capacity_) {
      buffer_[size_++] = c;
    } else {
      truncated_ = true;
    }
  }
  char* buffer_;
  std::size_t capacity_;
  std::size_t size_ = 0;
  bool truncated_ = false;
};

}  // namespace keel
