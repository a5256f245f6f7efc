#include "keel/http/output_buffer.hpp"

#include <cstring>

namespace keel::http {

OutputBuffer::OutputBuffer(std::size_t capacity) : capacity_(capacity) {}

void OutputBuffer::release() {
  if (empty()) data_.reset();
}

// The free space is kept at the back: what is pending moves to the front
// only when an append needs the space it left (one copy of what is still
// pending, never of what was sent).
void OutputBuffer::make_room(std::size_t count) {
  if (!data_) data_ = std::make_unique_for_overwrite<uint8_t[]>(capacity_);
  if (capacity_ - end_ >= count) return;
  std::memmove(data_.get(), data_.get() + begin_, size());
  end_ -= begin_;
  begin_ = 0;
}

bool OutputBuffer::append(std::span<const uint8_t> bytes) {
  if (bytes.size() > room()) return false;
  if (bytes.empty()) return true;
  make_room(bytes.size());
  std::memcpy(data_.get() + end_, bytes.data(), bytes.size());
  end_ += bytes.size();
  return true;
}

bool OutputBuffer::append(std::string_view bytes) {
  return append(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

void OutputBuffer::consume(std::size_t count) {
  begin_ += count < size() ? count : size();
  if (begin_ == end_) begin_ = end_ = 0;
}

}  // namespace keel::http
