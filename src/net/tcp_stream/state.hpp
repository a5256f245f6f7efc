// What a TcpStream is: its connection, the queue of bytes the send buffer
// has not taken yet, the input received and not yet handed out, and the
// service's handlers. The connection's three handlers own it (stream.cpp),
// so it lives exactly as long as the connection has handlers; TcpStream
// handles only point at it.
#pragma once
#include <algorithm>
#include <net/tcp_stream.hpp>
#include <type_traits>
#include <vector>

namespace net {

struct TcpStream::State {
  State(TcpConnection c, const TcpStreamOptions& o) : connection(c), options(o) {}

  // open: reading and writing. closing: close() was called, the queue
  // still goes into the send buffer, no handler runs. done: handed back
  // to the stack, aborted, or the connection ended.
  enum class Phase : uint8_t { open, closing, done };
  enum class Framing : uint8_t { none, line, bytes, data };

  TcpConnection connection;
  TcpStreamOptions options;
  Phase phase = Phase::open;

  // Writing (write.cpp). A chunk is a copy, or a zero-copy buffer sent whole.
  struct Chunk {
    std::vector<uint8_t> copy;
    TcpBuffer buffer;
    std::size_t sent = 0;  // of `copy`
    bool zero_copy = false;
  };
  // Copies smaller than this join the last chunk: few chunks for many
  // small writes, no large reallocations.
  static constexpr std::size_t copy_chunk = 16 * 1024;
  // Vectors, not deques: an idle stream allocates nothing (a libstdc++
  // deque takes 600 bytes at once, and an image holds 10,000 streams).
  std::vector<Chunk> queue;  // from queue_head on
  std::size_t queue_head = 0;
  std::size_t queued = 0;  // bytes in the queue
  bool queue_empty() const { return queue_head == queue.size(); }
  void pop_chunk();
  bool drain_wanted = false;  // a write was refused or the queue reached its limit
  bool fin_wanted = false;    // shutdown(): the FIN goes after the queue
  bool fin_sent = false;
  DrainHandler drain_handler;
  uint32_t drain_version = 0;

  bool can_write() const { return phase == Phase::open && !fin_wanted; }
  bool under_limit() const { return queued < std::max<std::size_t>(options.write_limit, 1); }
  Status write(std::span<const uint8_t> data);
  Status write(TcpBuffer buffer);
  // Moves the queue into the send buffer as far as it takes it, then the
  // FIN or the hand-over if asked for, then on_drain if due (from the
  // connection's on_writable).
  void flush();

  // Reading (read.cpp). Input not yet handed out, in order: first
  // `requeued` (bytes taken from the connection for a reader that was
  // then replaced), then `held`, spans of the connection's receive ring
  // delivered and not yet consumed (valid until consumed(): the ring does
  // not move while the service holds bytes of it, auto_consume off).
  std::vector<uint8_t> requeued;
  std::size_t requeued_at = 0;
  std::vector<std::span<const uint8_t>> held;  // a few: adjacent spans are joined
  // The start of a line or frame that arrived split, copied (and consumed).
  std::vector<uint8_t> partial;
  Framing framing = Framing::none;
  std::size_t count = 0;  // on_bytes
  LineHandler line_handler;
  BytesHandler bytes_handler;
  DataHandler data_handler;
  uint32_t reader_version = 0;
  EndHandler end_handler;
  ErrorHandler error_handler;
  bool paused = false, peer_done = false, end_delivered = false, failed = false;
  bool pumping = false;  // a pump() is running: others leave the work to it

  // From the connection's on_read: data, or the end of the stream (empty).
  void received(std::span<const uint8_t> data);
  // Hands input out while a reader takes it.
  void pump();
  void set_reader(Framing f, std::size_t n);
  bool input_empty() const { return requeued.empty() && held.empty(); }
  std::span<const uint8_t> front() const;
  // Releases the first `n` bytes of front() (consumed() for ring bytes),
  // while the stream is open.
  void release(std::size_t n);
  void take(std::size_t n);
  // Bytes of front() in a handler's hands now (released when it returns).
  // close() from that handler counts them as read: what the service was
  // handed is not the unread data a close answers with a reset
  // (RFC 1122 §4.2.2.13).
  std::size_t in_hand = 0;
  bool step();
  bool step_line();
  bool step_bytes();
  bool step_data();
  void fail(TcpStreamError error);

  // Ending (stream.cpp).
  CloseHandler close_handler;
  uint32_t close_version = 0;
  // From the connection's on_close.
  void ended(TcpCloseReason reason);
  void drop_handlers();
  bool handlers_live() const { return phase == Phase::open; }
};

// Runs a handler moved out of its slot, so it may replace itself or end
// the stream while it runs (STYLE.md); puts it back unless it was replaced
// (the version moved) or handlers stopped running.
template <class R, class... Args, class... Given>
R run_handler(const TcpStream::State& s, keel::delegate<R(Args...)>& slot, const uint32_t& version,
              Given&&... args) {
  keel::delegate<R(Args...)> handler = std::move(slot);
  slot = nullptr;
  uint32_t before = version;
  auto put_back = [&] {
    if (s.handlers_live() && version == before && !slot) slot = std::move(handler);
  };
  if constexpr (std::is_void_v<R>) {
    handler(std::forward<Given>(args)...);
    put_back();
  } else {
    R result = handler(std::forward<Given>(args)...);
    put_back();
    return result;
  }
}

}  // namespace net
