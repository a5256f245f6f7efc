// One TCP connection: the transmission control block of RFC 9293 §3.3.1
// and what acts on it. Its code is split by concern:
//   connection.cpp  opening, options negotiation, ending, the service's calls
//   input.cpp       segment arrival (RFC 9293 §3.10.7), RFC 5961, PAWS
//   ack.cpp         acknowledgments: RTT samples, cwnd, loss detection
//                   and recovery (RFC 5681, 6582, 6675), window updates
//   output.cpp      what to send now: data (Nagle, SWS avoidance), the
//                   recovery's retransmissions, ACKs, SYNs, RSTs
//   timers.cpp      retransmission, persist, delayed ACK, keepalive, TIME_WAIT
// The layer (tcp_layer.hpp) owns connections, finds them for segments,
// keeps their deadlines and runs the service's handlers afterwards.
#pragma once
#include <cstdint>
#include <net/tcp.hpp>
#include <span>

#include "congestion.hpp"
#include "connection_key.hpp"
#include "net/wire/tcp.hpp"
#include "receive_buffer.hpp"
#include "rtt.hpp"
#include "scoreboard.hpp"
#include "send_buffer.hpp"
#include "syn_cookies.hpp"

namespace net {
class TcpLayer;
}

namespace net::tcp {

inline constexpr uint64_t never = UINT64_MAX;
// RFC 9293 §3.7.1: the MSS when the peer sends none.
inline constexpr uint16_t default_mss = 536;
// RFC 8200 §8.3: over IPv6 a peer without the option takes 1220 (1280 - 60).
inline constexpr uint16_t default_mss6 =
    uint16_t(wire::ip6_min_mtu - wire::ip6_header_size - wire::tcp_header_min);
inline constexpr uint32_t ip4_tcp_headers = wire::ip4_header_min + wire::tcp_header_min;
inline constexpr uint32_t ip6_tcp_headers = wire::ip6_header_size + wire::tcp_header_min;
// What the network and TCP headers take of a packet on the key's path (an
// MSS is the MTU less these, RFC 9293 §3.7.1, RFC 8200 §8.3).
inline uint32_t ip_tcp_headers(const ConnectionKey& key) {
  return key.is_ip6() ? ip6_tcp_headers : ip4_tcp_headers;
}
inline uint16_t default_mss_for(const ConnectionKey& key) {
  return key.is_ip6() ? default_mss6 : default_mss;
}

// The window scale we offer (RFC 7323 §2.2) for a receive buffer.
uint8_t window_shift_for(uint32_t receive_buffer);

// A segment that arrived: checked, options parsed.
struct Segment {
  wire::TcpRepr header;
  std::span<const uint8_t> payload;
  bool has(uint8_t flag) const { return header.has(flag); }
  uint32_t seq() const { return header.seq; }
  uint32_t len() const { return header.sequence_len(); }  // SEG.LEN
};

// How the sender is getting over a loss.
enum class Recovery : uint8_t {
  none,
  fast,     // SACK-based loss recovery, RFC 6675 §5
  newreno,  // NewReno fast recovery without SACK, RFC 6582 §3.2
  loss,     // after a retransmission timeout: everything below recovery_point is resent
};

// What the layer tells the service after processing (a bit set).
namespace event {
inline constexpr uint8_t connected = 1, readable = 2, writable = 4, closed = 8;
}

class Connection {
 public:
  Connection(TcpLayer& layer, const ConnectionKey& key, const TcpOptions& options);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Opening (connection.cpp).
  void open_active(uint64_t now);
  void open_passive(const Segment& syn, uint64_t now);
  void open_from_cookie(const Segment& ack, uint16_t mss, const SynCookies::Options& cookie,
                        uint64_t now);

  void input(const Segment& segment, uint64_t now);  // input.cpp
  void output(uint64_t now);                         // output.cpp
  void on_timer(uint64_t now);                       // timers.cpp
  uint64_t next_deadline() const;
  // ICMP (tcp_icmp.cpp): fragmentation needed with the next hop's MTU, or
  // a hard error while connecting.
  void path_mtu(uint32_t mtu, uint64_t now);
  void unreachable(TcpCloseReason reason);

  // The service's calls (connection.cpp).
  std::size_t write(std::span<const uint8_t> data, uint64_t now);
  bool write(TcpBuffer buffer, uint64_t now);
  std::size_t send_space() const;
  void shutdown(uint64_t now);
  void close(uint64_t now);
  void abort(uint64_t now);
  void consume(uint32_t bytes, uint64_t now);
  void set_buffers(uint32_t send_bytes, uint32_t receive_bytes, uint64_t now);
  void set_keepalive(bool on, uint64_t now);
  TcpStats statistics() const;
  // The layer ran the service's close handler (or there was none): frees
  // the buffers a TIME_WAIT keeps no use for.
  void release_buffers();

  // Ends the connection (CLOSED): tells the service `reason` unless it
  // closed its handle, and hands the connection back to the layer.
  void finish(TcpCloseReason reason);
  bool visible() const { return !user_closed && !ended; }
  uint32_t rcv_nxt() const { return receive.next() + (peer_fin ? 1 : 0); }

  // Identity.
  TcpLayer& layer;
  ConnectionKey key;
  uint32_t slot = 0, generation = 0;
  TcpState state = TcpState::closed;
  TcpOptions options;
  uint32_t listener_slot = UINT32_MAX, listener_generation = 0;  // passive opens
  bool in_backlog = false;  // counted in its listener's handshakes
  uint64_t opened_ns = 0;

  // Send sequence space (RFC 9293 §3.3.1). snd_nxt is the next new
  // sequence number; retransmissions go out below it.
  uint32_t iss = 0, snd_una = 0, snd_nxt = 0;
  uint32_t snd_wnd = 0, max_snd_wnd = 0, snd_wl1 = 0, snd_wl2 = 0;
  uint8_t snd_wscale = 0, rcv_wscale = 0;
  SendBuffer send;
  bool fin_queued = false;  // shutdown()/close(): FIN after the queued data
  bool fin_sent = false;
  uint32_t fin_seq = 0;  // our FIN's sequence number, once sent

  // Receive sequence space.
  uint32_t irs = 0;
  uint32_t rcv_adv = 0;  // right edge of the window last advertised
  // The furthest right edge ever advertised: the peer may have sent up to
  // it, though rcv_adv moved back by less than a unit (output.cpp).
  uint32_t rcv_offered = 0;
  ReceiveBuffer receive;
  bool peer_fin = false;          // the peer's FIN, in order
  bool peer_fin_pending = false;  // a FIN that arrived ahead of data
  uint32_t peer_fin_seq = 0;
  bool eof_delivered = false;

  // Negotiated options (RFC 7323, RFC 2018) and segment size.
  bool ts_ok = false, sack_ok = false, ws_ok = false;
  uint32_t ts_offset = 0;      // added to the clock in our TSval
  uint32_t ts_recent = 0;      // TS.Recent
  uint64_t ts_recent_ns = 0;   // when TS.Recent was set (PAWS' 24 days)
  uint32_t last_ack_sent = 0;  // Last.ACK.sent
  uint16_t peer_mss = default_mss;
  uint32_t mss = default_mss;  // payload bytes per segment, options subtracted
  // New data per segment: mss, or many of it where the route's NIC does TSO
  // (TcpLayer::segment_limit); set with mss, so no route per segment.
  uint32_t segment_max = default_mss;
  uint32_t path_mtu_bytes = 0;
  uint32_t rcv_mss = 0;  // the largest segment the peer sent (delayed ACKs)

  // Reliability and congestion.
  RttEstimator rtt;
  bool rtt_timing = false;  // a segment is timed (Karn: never a retransmitted one)
  uint32_t rtt_seq = 0;
  uint64_t rtt_start_ns = 0;
  Congestion cc;
  Scoreboard scoreboard;
  Recovery recovery = Recovery::none;
  uint32_t recovery_point = 0;  // RecoveryPoint / NewReno's "recover"
  uint32_t high_rxt = 0;        // HighRxt: the highest retransmitted + 1
  uint32_t dup_acks = 0;
  uint64_t stalled_since_ns = 0;  // first expiry without progress (user timeout)
  uint32_t syn_retries = 0;

  // ACKs owed.
  bool ack_now = false;
  uint32_t unacked_bytes = 0;
  uint64_t last_oow_ack_ns = never;  // the last ACK sent for an out-of-window segment without data

  // Timers: absolute times in ns, `never` when idle.
  uint64_t retransmit_at = never;
  uint64_t persist_at = never;
  uint32_t persist_backoff = 0;
  uint32_t probe_end = 0;  // a window probe's byte ends here (past snd_nxt), while probing
  uint64_t probing_since_ns = never;  // the first unanswered window probe
  uint64_t delayed_ack_at = never;
  uint64_t keepalive_at = never;
  uint32_t keepalives_unanswered = 0;
  uint64_t linger_at = never;  // the end of TIME_WAIT, or of an orphaned FIN_WAIT_2
  uint64_t last_heard_ns = 0;

  // The service's side.
  Tcp::ConnectHandler on_connect;  // connect()'s; a passive open uses its listener's
  TcpConnection::ReadHandler on_read;
  TcpConnection::WritableHandler on_writable;
  TcpConnection::CloseHandler on_close;
  uint32_t read_version = 0, writable_version = 0, close_version = 0;
  uint8_t events = 0;   // to dispatch (event::*)
  bool queued = false;  // in the layer's dispatch queue
  TcpCloseReason close_reason = TcpCloseReason::closed;
  bool user_closed = false;     // close()/abort(): no handler runs again
  bool ended = false;           // on_close is due or ran: the handle is closed
  bool wants_writable = false;  // a write() came up short
  bool link_blocked = false;    // waiting for the interface's queue
  TcpStats stats;

 private:
  // connection.cpp
  void take_syn_options(const wire::TcpOptions& syn);
  void set_mss_from_route();
  void establish(uint64_t now);
  void enter_time_wait(uint64_t now);
  void notify(uint8_t events);
  // input.cpp
  void input_syn_sent(const Segment& s, uint64_t now);
  bool acceptable(const Segment& s, uint64_t now);
  void take_timestamp(const Segment& s, uint64_t now);
  void input_rst(const Segment& s);
  void input_text(const Segment& s, uint64_t now);
  void input_fin(uint32_t fin_seq, uint64_t now);
  void apply_fin(uint64_t now);
  void challenge_ack(uint64_t now);
  bool may_ack_out_of_window(uint64_t now);
  // ack.cpp
  bool ack_acceptable(const Segment& s, uint64_t now);
  bool input_ack(const Segment& s, uint64_t now);
  void take_rtt_sample(const Segment& s, uint32_t ack, uint64_t now);
  void new_ack(const Segment& s, uint32_t acked, uint32_t flight, uint64_t now);
  void duplicate_ack(uint64_t now);
  void enter_recovery(uint64_t now);
  void after_fin_acked(uint64_t now);
  // output.cpp
  void send_new_data(uint64_t now);
  void send_recovery(uint64_t now);
  bool retransmit(uint32_t seq, uint32_t max_len, uint64_t now);
  bool transmit(uint32_t seq, uint32_t len, uint8_t flags, uint64_t now);
  void send_syn(uint64_t now);
  void send_reset();
  uint16_t advertise_window();
  uint32_t queued_end() const { return snd_una + uint32_t(send.size()); }
  // timers.cpp
  void arm_retransmit(uint64_t now);
  void on_retransmit_timeout(uint64_t now);
  void on_persist(uint64_t now);
  void on_keepalive(uint64_t now);
  void arm_keepalive(uint64_t now);
  uint64_t now_ms(uint64_t now) const;
  uint32_t tsval(uint64_t now) const { return uint32_t(now_ms(now)) + ts_offset; }
  void send_probe(uint64_t now);

  friend class net::TcpLayer;
};

}  // namespace net::tcp
