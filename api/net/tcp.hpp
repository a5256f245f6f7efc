// TCP (RFC 9293) for services: listen or connect, then read, write and
// close through a connection handle. Everything is non-blocking and runs
// from the event loop, on both platforms alike.
//
// Services usually read and write through net::TcpStream (net/tcp_stream.hpp):
// its write() never drops what the send buffer has no room for, and it
// reads by line or by length. An echo:
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
// The connection's own write() takes only what fits in the send buffer and
// says how much; the rest is the caller's to keep until on_writable.
//
// Ownership. A TcpConnection or TcpListener is a handle (copy it freely):
// the stack owns the connection. close() hands it back to the stack, which
// sends what is queued and the FIN and finishes the close on its own;
// abort() resets it at once. After either, the handle (every copy) answers
// Status::closed and no handler of the connection runs again. Otherwise
// on_close(reason) runs exactly once when the connection ends (both FINs
// exchanged, reset, timed out, or a connect that failed), and from then on
// the handle answers Status::closed. A handle never reaches freed memory:
// a closed one (even after its slot is reused) is told so.
//
// Handlers run once the stack is done with the frame or step that caused
// them (docs/net/handlers.md), never in the middle of its processing nor
// inside a call of the service's own, and may call anything on any handle: close, abort or
// replace themselves, write, open other connections. An exception a
// handler throws aborts that connection only (tcp.handler_exceptions).
//
// docs/net/tcp.md has the design, the RFCs implemented and the limits.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <net/address.hpp>
#include <net/counters.hpp>
#include <net/routes.hpp>
#include <net/status.hpp>
#include <span>
#include <string>
#include <util/delegate.hpp>
#include <vector>

namespace net {

class Tcp;
class TcpLayer;  // the protocol (src/net/tcp/tcp_layer.hpp)

// RFC 9293 §3.3.2.
enum class TcpState : uint8_t {
  closed,
  listen,
  syn_sent,
  syn_received,
  established,
  fin_wait_1,
  fin_wait_2,
  close_wait,
  closing,
  last_ack,
  time_wait,
};
const char* to_string(TcpState state);

// Why a connection ended (on_close).
enum class TcpCloseReason : uint8_t {
  closed,       // both sides sent FIN and ours was acknowledged
  reset,        // the peer reset it (RST)
  refused,      // connect: the peer answered with RST, or ICMP port/protocol unreachable
  unreachable,  // connect: ICMP host or network unreachable, or no route
  timed_out,    // retransmissions, the connect or keepalive probes went unanswered
  no_memory,    // the stack could not keep the data the peer sent after close
};
const char* to_string(TcpCloseReason reason);

enum class TcpCongestion : uint8_t {
  cubic,    // RFC 9438 (the default)
  newreno,  // RFC 5681 + RFC 6582
};

// Settings of one connection (a listener's apply to the connections it
// accepts). Buffer sizes are upper bounds: memory is taken as data comes,
// within the stack's budget (Tcp::Limits).
struct TcpOptions {
  uint32_t send_buffer = 256 * 1024;     // bytes write() queues until acknowledged
  uint32_t receive_buffer = 256 * 1024;  // the window: bytes not yet consumed
  bool no_delay = false;                 // true: Nagle off (RFC 9293 §3.7.4)
  TcpCongestion congestion = TcpCongestion::cubic;
  // Offered in the handshake, used if the peer agrees.
  bool sack = true;        // RFC 2018
  bool timestamps = true;  // RFC 7323 (window scaling is always offered)
  // Keepalive (RFC 9293 §3.8.4, RFC 1122 §4.2.3.6): off by default.
  bool keepalive = false;
  std::chrono::seconds keepalive_idle{7200};
  std::chrono::seconds keepalive_interval{75};
  uint32_t keepalive_probes = 9;
  // true: on_read's data is released when the handler returns. false: it
  // stays (and the window stays closed by as much) until consumed().
  bool auto_consume = true;
  // A connect() that gets no SYN-ACK gives up after this (timed_out).
  std::chrono::seconds connect_timeout{75};
  // Retransmissions of data give up after this much time without progress.
  std::chrono::seconds user_timeout{300};
};

// What a connection has done, for the service (and `keel bench`).
struct TcpStats {
  TcpState state = TcpState::closed;
  uint32_t mss = 0;                                 // the largest segment sent now (payload bytes)
  uint32_t srtt_us = 0, rttvar_us = 0, rto_ms = 0;  // RFC 6298
  uint32_t cwnd = 0, ssthresh = 0;                  // bytes
  uint32_t send_window = 0;                         // the peer's, scaled
  uint32_t receive_window = 0;                      // ours, as last advertised
  uint64_t bytes_sent = 0;  // data bytes put on the wire, retransmissions included
  uint64_t bytes_acked = 0;
  uint64_t bytes_received = 0;  // in order, delivered to the buffer
  uint64_t segments_sent = 0, segments_received = 0;
  // Payload bytes of the longest segment received: over an MSS when the NIC
  // hands over segments the host coalesced (Nic::Offloads::rx_segmentation).
  uint32_t largest_segment_received = 0;
  uint64_t retransmits = 0;                     // segments sent again
  uint64_t fast_retransmits = 0, timeouts = 0;  // recovery episodes by cause
  uint64_t sack_recoveries = 0;                 // fast recoveries driven by SACK (RFC 6675)
  uint64_t dup_acks_received = 0;
  uint64_t out_of_order_segments = 0;
  bool timestamps = false, sack = false, window_scale = false;  // negotiated
};

// Bytes handed to write() without a copy: the stack holds `owner` until
// the peer has acknowledged the last of them, and reads `bytes` until then.
struct TcpBuffer {
  std::shared_ptr<const void> owner;
  std::span<const uint8_t> bytes;

  static TcpBuffer from(std::vector<uint8_t> data);
  static TcpBuffer from(std::string data);
  // Shared by many connections (a file a web server sends to everyone).
  static TcpBuffer from(std::shared_ptr<const std::vector<uint8_t>> data);
};

class TcpConnection {
 public:
  // Data in order as it arrives; an empty span once, when the peer has
  // sent everything (its FIN). The bytes stay valid during the call and,
  // without auto_consume, until consumed() releases them.
  using ReadHandler = keel::delegate<void(std::span<const uint8_t> data)>;
  using WritableHandler = keel::delegate<void()>;
  using CloseHandler = keel::delegate<void(TcpCloseReason)>;

  TcpConnection() = default;  // no connection: every call answers Status::closed

  bool is_open() const;
  TcpState state() const;  // closed once the handle is closed
  Endpoint local() const;
  Endpoint remote() const;
  InterfaceId interface() const;  // where it leaves, as routed now

  // Setting a read handler delivers what arrived before it (from the event
  // loop, not from inside this call).
  Status on_read(ReadHandler handler);
  // Runs once, when room appears in the send buffer after a write took
  // less than it was given (or would_block).
  Status on_writable(WritableHandler handler);
  Status on_close(CloseHandler handler);

  // Queues as much of `data` as the send buffer takes; the count (maybe
  // less than given), would_block when nothing fits, closed after
  // shutdown()/close() or on a closed handle. Data written before the
  // handshake completes goes out after it.
  Result<std::size_t> write(std::span<const uint8_t> data);
  Result<std::size_t> write(const void* data, std::size_t len) {
    return write({static_cast<const uint8_t*>(data), len});
  }
  // Zero-copy: takes the whole buffer while the send buffer has any room
  // (the queue may pass its size by one buffer), else would_block.
  Status write(TcpBuffer buffer);
  // Bytes write() would take now.
  std::size_t send_space() const;
  // Bytes written and not yet acknowledged by the peer.
  std::size_t send_queued() const;

  // Without auto_consume: releases the first `bytes` delivered and not yet
  // consumed, opening the window by as much. invalid if more than held.
  Status consumed(std::size_t bytes);
  // Delivered bytes not yet consumed.
  std::size_t unconsumed() const;

  // Half-close: a FIN after the queued data; reading goes on.
  Status shutdown();
  // Hands the connection to the stack: queued data and a FIN go out, data
  // arriving afterwards is answered with a reset. No handler runs again.
  Status close();
  // Resets the connection (RST) and drops what is queued. No handler runs again.
  Status abort();

  Status set_no_delay(bool on);
  Status set_keepalive(bool on);
  // Send and receive buffer sizes; the receive window shrinks only as data
  // is consumed (RFC 9293 §3.8.6.2.2: the right edge never moves back).
  Status set_buffers(uint32_t send_bytes, uint32_t receive_bytes);
  Status set_congestion(TcpCongestion algorithm);
  TcpOptions options() const;
  TcpStats stats() const;

  friend bool operator==(const TcpConnection&, const TcpConnection&) = default;

 private:
  friend class TcpLayer;
  TcpConnection(TcpLayer* layer, uint32_t slot, uint32_t generation)
      : layer_(layer), slot_(slot), generation_(generation) {}
  TcpLayer* layer_ = nullptr;
  uint32_t slot_ = 0, generation_ = 0;
};

class TcpListener {
 public:
  TcpListener() = default;
  bool is_open() const;
  Endpoint local() const;
  // Connections in the handshake now (SYN received, final ACK not yet).
  std::size_t pending() const;
  // Stops accepting; connections already accepted go on.
  void close();

  friend bool operator==(const TcpListener&, const TcpListener&) = default;

 private:
  friend class TcpLayer;
  TcpListener(TcpLayer* layer, uint32_t slot, uint32_t generation)
      : layer_(layer), slot_(slot), generation_(generation) {}
  TcpLayer* layer_ = nullptr;
  uint32_t slot_ = 0, generation_ = 0;
};

class Tcp {
 public:
  // A connection that completed its handshake (listen), or whose connect
  // did. The handler sets the connection's own handlers; data that arrives
  // before on_read() is set waits in the receive buffer.
  using ConnectHandler = keel::delegate<void(TcpConnection)>;

  // Bounds on the whole of TCP (docs/net/tcp.md); 0 fields take defaults
  // scaled to the image's memory.
  struct Limits {
    std::size_t max_connections = 0;     // every state, TIME_WAIT included
    std::size_t memory = 0;              // bytes of send and receive buffers, all connections
    uint32_t backlog = 128;              // per listener: handshakes in progress, then SYN cookies
    std::chrono::seconds time_wait{60};  // 2·MSL (RFC 9293 §3.4.2 with MSL 30 s, as Linux)
    // RFC 5961 §7: challenge ACKs per second host-wide, drawn each second
    // from [n/2, 3n/2); 0: no host-wide limit. Each connection also sends
    // at most one challenge (or out-of-window ACK) per 500 ms.
    uint32_t challenge_acks_per_second = 1000;
  };

  // Accepts connections to `local` with `options`: on the any-address
  // (0.0.0.0 or ::, one listener) every address of this host, IPv4 and
  // IPv6; on one of our addresses only that one, so only its family
  // (decision 0131). in_use if the port is listened on already.
  Result<TcpListener> listen(const Endpoint& local, ConnectHandler on_connect,
                             const TcpOptions& options = {});
  Result<TcpListener> listen(uint16_t port, ConnectHandler on_connect,
                             const TcpOptions& options = {}) {
    return listen(Endpoint{ip4::Addr{}, port}, std::move(on_connect), options);
  }
  // Opens a connection to `remote` (IPv4 or IPv6) from an ephemeral port
  // (or `local`, when given; its address of the same family, or any). The handle is usable at once
  // (write() queues); on_connect runs when the handshake completes, on_close if it fails.
  Result<TcpConnection> connect(const Endpoint& remote, ConnectHandler on_connect,
                                const TcpOptions& options = {}, const Endpoint& local = {});

  void set_limits(const Limits& limits);
  Limits limits() const;
  // Connections the stack holds (every state but closed), and the buffer
  // memory they use now.
  std::size_t connections() const;
  std::size_t memory_used() const;
  const TcpCounters& counters() const;

 private:
  friend struct StackParts;
  explicit Tcp(TcpLayer& layer) : layer_(layer) {}
  TcpLayer& layer_;
};

}  // namespace net
