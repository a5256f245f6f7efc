// What a connection received and the service has not consumed: a ring of
// bytes from the first unconsumed sequence number on, holding data in
// order (delivered to the service or not yet) and, past RCV.NXT, data
// that arrived out of order (RFC 9293 §3.10.7.4, "segment text"), kept as
// a bounded list of ranges that also makes the SACK blocks (RFC 2018 §4).
// The ring grows as data comes, up to the connection's receive buffer,
// taking memory from the budget; the window advertised is what is left of
// that size (the connection's business).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "budget.hpp"
#include "net/wire/tcp.hpp"

namespace net::tcp {

class ReceiveBuffer {
 public:
  // Out-of-order ranges tracked; a segment that would make more is dropped.
  static constexpr std::size_t max_ranges = 32;
  static constexpr std::size_t min_ring = 2048;
  // With the budget under pressure, a ring starts at what the data needs.
  static constexpr std::size_t min_ring_under_pressure = 64;

  ReceiveBuffer() = default;
  ReceiveBuffer(const ReceiveBuffer&) = delete;
  ReceiveBuffer& operator=(const ReceiveBuffer&) = delete;
  ~ReceiveBuffer() { release(); }

  // Starts the stream at sequence number `next` (IRS + 1).
  void start(uint32_t next);

  enum class Stored { ok, no_memory, too_many_ranges };
  // Keeps what of `data` (starting at `seq`) is new and lies within
  // `limit` bytes of the first unconsumed byte. Data in order moves next()
  // on, over any ranges it joins. The ring grows in powers of two, or to
  // exactly `at_least` bytes at once when that is given; it never moves
  // while delivered bytes wait to be consumed (the service holds spans of
  // them), so it cannot grow then.
  Stored store(uint32_t seq, std::span<const uint8_t> data, uint32_t limit, Budget& budget,
               uint32_t at_least = 0);

  uint32_t next() const { return next_; }                      // RCV.NXT
  uint32_t held() const { return next_ - consumed_; }          // in order, not consumed
  uint32_t undelivered() const { return next_ - delivered_; }  // in order, not yet handed out
  uint32_t unconsumed_delivered() const { return delivered_ - consumed_; }
  // The first bytes not yet delivered that lie together in the ring (all
  // of them, unless the ring wraps); delivered() marks them handed out.
  std::span<const uint8_t> undelivered_span() const;
  void delivered(uint32_t n) { delivered_ += n; }
  // Releases the first `n` delivered bytes.
  void consume(uint32_t n);

  bool has_out_of_order() const { return !ranges_.empty(); }
  // The highest sequence number held (out of order included) + 1.
  uint32_t highest() const;
  // SACK blocks for the next segment: the range holding the latest
  // arrival first, then the ones reported most recently (RFC 2018 §4).
  void sack_blocks(wire::TcpOptions& options, uint32_t max_blocks) const;

  // Frees the ring if nothing is held (under memory pressure, or closing).
  void release_if_empty(Budget& budget);
  void release();
  std::size_t capacity() const { return capacity_; }

 private:
  struct Range {
    uint32_t left, right;  // [left, right)
  };
  bool reserve(uint32_t bytes, uint32_t exactly, Budget& budget);
  uint32_t wrap(uint32_t index) const;
  void write(uint32_t seq, std::span<const uint8_t> data);
  void add_range(uint32_t left, uint32_t right);
  void remember(uint32_t seq);

  std::unique_ptr<uint8_t[]> ring_;
  uint32_t capacity_ = 0;
  uint32_t head_ = 0;  // ring index of `consumed_`
  uint32_t consumed_ = 0, delivered_ = 0, next_ = 0;
  std::vector<Range> ranges_;  // beyond next_, sorted, disjoint, not touching
  std::array<uint32_t, wire::tcp_max_sack_blocks> recent_{};  // latest arrivals, newest first
  uint32_t recent_count_ = 0;
  Budget* budget_ = nullptr;
};

}  // namespace net::tcp
