// A byte stream over a TCP connection: writes that never lose data, with
// a bounded queue and back-pressure, and reading by line, by length or in
// chunks, releasing input (opening the TCP window) as the service takes
// it. Built only on the connection handle (net/tcp.hpp); docs/net/tcp.md
// ("TcpStream") and docs/decisions/0046 say why it looks like this.
//
//   net::TcpOptions o;
//   o.auto_consume = false;  // the stream releases input itself
//   auto listener = *stack.tcp().listen(7, [](net::TcpConnection c) {
//     auto s = *net::TcpStream::open(c);
//     s.on_data([s](std::span<const uint8_t> data) mutable -> std::size_t {
//       if (s.write(data) != net::Status::ok) return 0;  // queue full: pause
//       return data.size();                             // taken: released
//     });
//     s.on_drain([s]() mutable { s.resume(); });  // the queue emptied: go on
//     s.on_end([s](std::span<const uint8_t>) mutable { s.close(); });
//   }, o);
//
// Writing. write() takes all it is given, or nothing: what the send buffer
// does not take waits in the stream's queue, and it is sent in order; a
// write is taken whole while the queue holds less than write_limit bytes,
// else refused with would_block (nothing taken), and on_drain runs when
// the queue falls to drain_at. So a peer that never reads costs at most
// the send buffer plus write_limit plus one write, never unbounded memory.
//
// Reading. One reader at a time, set by on_line, on_bytes or on_data and
// kept until another replaces it (from inside a handler, too: the next
// bytes go to the new one). A line or a frame handed to a handler is
// released (consumed, the window opens) when the handler returns; the
// bytes behind it stay in the connection's receive buffer until a reader
// takes them, so a service that pause()s, or has no reader, closes the
// window and slows the peer. A line or frame split across segments is
// copied (bounded by max_line or max_frame); a whole one is not.
//
// Lifetime. A TcpStream is a handle, like TcpConnection: the connection's
// handlers own the stream, so it lives as long as the connection and no
// longer; copies are free, a handle to an ended stream answers
// Status::closed. Handlers run from the connection's events, each moved
// out while it runs, so a handler may close, abort or replace itself.
// After close() or abort() no handler runs again; otherwise on_close runs
// once when the connection ends. resume() and the reader setters, called
// outside this stream's handlers, hand out input already received before
// they return (from inside one, after it returns).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <net/status.hpp>
#include <net/tcp.hpp>
#include <span>
#include <string_view>
#include <util/delegate.hpp>

namespace net {

struct TcpStreamOptions {
  // Bytes the stream queues beyond the connection's send buffer before
  // write() refuses (the write that crosses it is still taken whole).
  std::size_t write_limit = 64 * 1024;
  // on_drain runs when the queue falls to this many bytes.
  std::size_t drain_at = 16 * 1024;
  // The longest line on_line accepts, without its line ending.
  std::size_t max_line = 8 * 1024;
  // The largest count on_bytes accepts (a DNS message over TCP: 65,535).
  std::size_t max_frame = 64 * 1024;
};

enum class TcpStreamError : uint8_t {
  line_too_long,  // more than max_line bytes without a line ending
};
const char* to_string(TcpStreamError error);

class TcpStream {
 public:
  // A line without its ending (LF, or CR LF: RFC 9112 §2.2); valid
  // during the call.
  using LineHandler = keel::delegate<void(std::string_view line)>;
  // Exactly the count asked for; valid during the call.
  using BytesHandler = keel::delegate<void(std::span<const uint8_t> bytes)>;
  // Data as it comes; returns how many bytes it took. Taking fewer pauses
  // reading: the rest is offered again after resume().
  using DataHandler = keel::delegate<std::size_t(std::span<const uint8_t> data)>;
  // The peer sent everything and all of it was handed out; `rest` holds
  // what did not make a whole line or frame (usually nothing).
  using EndHandler = keel::delegate<void(std::span<const uint8_t> rest)>;
  using ErrorHandler = keel::delegate<void(TcpStreamError)>;
  using DrainHandler = keel::delegate<void()>;
  using CloseHandler = TcpConnection::CloseHandler;

  TcpStream() = default;  // no stream: every call answers Status::closed

  // Takes over the connection's handlers (set none on it afterwards). The
  // connection must have TcpOptions::auto_consume off (else invalid);
  // closed if it is.
  static Result<TcpStream> open(TcpConnection connection, const TcpStreamOptions& options = {});

  bool is_open() const;
  // The connection (stats, options, addresses); closed once the stream is.
  TcpConnection connection() const;

  // Writing. ok: all of it is taken and will be sent in order; would_block:
  // none of it (the queue is at write_limit; on_drain says when to retry);
  // closed after shutdown(), close(), abort() or the connection's end.
  [[nodiscard]] Status write(std::span<const uint8_t> data);
  [[nodiscard]] Status write(std::string_view text);
  // Zero-copy: the buffer's owner is held until the peer acknowledges it.
  [[nodiscard]] Status write(TcpBuffer buffer);
  // Whether write() takes data now.
  bool writable() const;
  // Bytes waiting in the stream's queue (not yet in the send buffer).
  std::size_t queued() const;
  // Runs when the queue falls to drain_at after write() refused or the
  // queue reached write_limit.
  Status on_drain(DrainHandler handler);

  // Reading: each sets the reader (the previous one's pending input goes
  // to this one). on_bytes: `count` from 1 to max_frame, else invalid or
  // too_big.
  Status on_line(LineHandler handler);
  Status on_bytes(std::size_t count, BytesHandler handler);
  Status on_data(DataHandler handler);
  Status on_end(EndHandler handler);
  // Reading stops for good; the connection stays for the service to answer
  // and close.
  Status on_error(ErrorHandler handler);
  // Stops handing input out (what arrives waits, the window closes) until
  // resume().
  Status pause();
  Status resume();
  bool paused() const;

  // Half-close: a FIN after everything queued; reading goes on, on_close
  // runs when the connection ends.
  Status shutdown();
  // Stops reading and hands the connection to the stack once the queue has
  // gone into the send buffer: the FIN follows the data. As with
  // TcpConnection::close(), data the peer sends from now on makes the
  // stack answer with a reset (to read until the peer is done, shutdown()
  // and close() from on_end). No handler runs again.
  Status close();
  // Resets the connection and drops what is queued. No handler runs again.
  Status abort();
  Status on_close(CloseHandler handler);

  struct State;  // src/net/tcp_stream/state.hpp

 private:
  explicit TcpStream(std::weak_ptr<State> state) : state_(std::move(state)) {}
  std::weak_ptr<State> state_;
};

}  // namespace net
