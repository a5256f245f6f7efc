// What a connection has to send: the bytes from SND.UNA on (sent and not
// acknowledged, then not yet sent), as a queue of chunks. A write() copies
// into chunks the buffer allocates (as the data comes, within the budget);
// a zero-copy write hands over a buffer that becomes a chunk of its own.
// Segments copy their payload out of it straight into the frame.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <net/tcp.hpp>
#include <span>
#include <vector>

#include "budget.hpp"

namespace net::tcp {

class SendBuffer {
 public:
  // Copied writes go into chunks of up to this much.
  static constexpr std::size_t max_chunk = 16 * 1024;
  static constexpr std::size_t min_chunk = 1024;
  // With the budget under pressure, small writes take only what they need.
  static constexpr std::size_t min_chunk_under_pressure = 64;

  SendBuffer() = default;
  SendBuffer(const SendBuffer&) = delete;
  SendBuffer& operator=(const SendBuffer&) = delete;
  ~SendBuffer() { clear(); }

  // Bytes queued: unacknowledged and unsent.
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Copies as much of `data` as `budget` grants storage for; returns how
  // many bytes it took.
  std::size_t append(std::span<const uint8_t> data, Budget& budget);
  // Takes `buffer` as a chunk of its own; false if the budget refuses it.
  bool append(TcpBuffer buffer, Budget& budget);

  // Copies `len` bytes from `offset` bytes past the front into `out`.
  void copy(std::size_t offset, std::size_t len, uint8_t* out) const;
  // Drops `n` bytes from the front (acknowledged), freeing whole chunks.
  void drop_front(std::size_t n);
  void clear();

 private:
  struct Chunk {
    uint64_t start = 0;                  // stream position of data[0]
    std::unique_ptr<uint8_t[]> storage;  // a copy's bytes
    std::shared_ptr<const void> owner;   // a handed-over buffer's
    const uint8_t* data = nullptr;
    uint32_t size = 0, capacity = 0;  // capacity: what the budget gave
  };
  // The chunk holding stream position `pos`.
  std::size_t chunk_at(uint64_t pos) const;

  // A vector, not a deque: empty until the first write (an idle connection
  // holds nothing), and short (a few chunks), so dropping from the front is cheap.
  std::vector<Chunk> chunks_;
  uint64_t front_ = 0;  // stream position of the first byte queued
  std::size_t size_ = 0;
  Budget* budget_ = nullptr;  // where freed chunks go back to
};

}  // namespace net::tcp
