// A bounded byte queue between a response writer and the connection: the
// writer appends what fits, the connection takes from the front as the
// peer reads. Its capacity is fixed when it is made, so a slow reader
// costs at most that much here (plus what the transport queues), never
// more: when it is full the writer says would_block and the producer
// waits until the connection has taken some (TcpStream's on_drain).
//
// The storage is allocated at the first append and freed by release() once
// all was taken, so an idle keep-alive connection holds none of it: 10,000
// of them would otherwise hold 10,000 buffers of 16 KiB (docs/http.md,
// "What a connection costs").
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace keel::http {

class OutputBuffer {
 public:
  explicit OutputBuffer(std::size_t capacity);

  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return end_ - begin_; }
  std::size_t room() const { return capacity_ - size(); }
  bool empty() const { return begin_ == end_; }
  // Whether the storage is allocated now (false when made and after release()).
  bool allocated() const { return data_ != nullptr; }

  // Appends all of `bytes` if they fit in room(), else nothing.
  bool append(std::string_view bytes);
  bool append(std::span<const uint8_t> bytes);

  // What waits to be sent, oldest first; consume() what was sent.
  std::span<const uint8_t> pending() const { return {data_.get() + begin_, size()}; }
  void consume(std::size_t count);
  // Frees the storage if nothing is pending (the next append allocates it
  // again); a connection calls it when a response is done.
  void release();

 private:
  void make_room(std::size_t count);

  std::unique_ptr<uint8_t[]> data_;
  std::size_t capacity_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

}  // namespace keel::http
