// Opening a connection (RFC 9293 §3.5), negotiating its options, ending
// it, and what the service's calls do to it.
#include "connection.hpp"

#include <algorithm>

#include "net/stack_parts.hpp"
#include "seq.hpp"
#include "tcp_layer.hpp"

namespace net::tcp {
namespace {

// The window scale we offer (RFC 7323 §2.2): enough for the larger of the
// receive buffer and 1 MiB, so a buffer raised later still fits.
constexpr uint32_t scale_for_at_least = 1u << 20;
constexpr uint32_t max_unscaled_window = 65535;
// RFC 7323 §3.2: timestamps' overhead on every segment.
constexpr uint32_t timestamps_overhead = 12;
// RFC 1122 §3.3.3: every host takes datagrams of 576 bytes (no route yet).
constexpr uint32_t fallback_mtu = 576;
// RFC 9293 §3.7.1 leaves the floor open; below this a segment is mostly header.
constexpr uint32_t min_mss = 64;

}  // namespace

uint8_t window_shift_for(uint32_t buffer) {
  uint32_t want = std::max(buffer, scale_for_at_least);
  uint8_t shift = 0;
  while (shift < wire::tcp_max_window_shift && (max_unscaled_window << shift) < want) ++shift;
  return shift;
}

Connection::Connection(TcpLayer& l, const ConnectionKey& k, const TcpOptions& o)
    : layer(l), key(k), options(o) {}

void Connection::notify(uint8_t e) {
  events |= e;
  layer.notify(*this);
}

void Connection::set_mss_from_route() {
  auto path = layer.route(key);
  if (path_mtu_bytes == 0) path_mtu_bytes = path ? layer.mtu(*path, key) : fallback_mtu;
  uint32_t by_path = path_mtu_bytes - ip_tcp_headers(key);
  uint32_t payload = std::min<uint32_t>(peer_mss, by_path) - (ts_ok ? timestamps_overhead : 0);
  mss = std::max(payload, min_mss);
  segment_max = layer.segment_limit(key, mss);
  cc.set_mss(mss);
}

void Connection::take_syn_options(const wire::TcpOptions& syn) {
  peer_mss = syn.mss.value_or(default_mss_for(key));
  if (peer_mss == 0) peer_mss = default_mss_for(key);
  ws_ok = syn.window_scale.has_value();
  snd_wscale = ws_ok ? *syn.window_scale : 0;
  rcv_wscale = ws_ok ? window_shift_for(options.receive_buffer) : 0;
  sack_ok = syn.sack_permitted && options.sack;
  ts_ok = syn.timestamps.has_value() && options.timestamps;
  if (ts_ok) {
    ts_recent = syn.timestamps->value;
    ts_recent_ns = layer.now();
  }
}

void Connection::open_active(uint64_t now) {
  state = TcpState::syn_sent;
  opened_ns = now;
  iss = layer.secrets().initial_sequence(key, now);
  ts_offset = layer.secrets().timestamp_offset(key);
  snd_una = iss;
  snd_nxt = iss + 1;
  recovery_point = iss;
  rcv_wscale = window_shift_for(options.receive_buffer);
  set_mss_from_route();
  ++layer.counters().active_opens;
  send_syn(now);
  arm_retransmit(now);
}

void Connection::open_passive(const Segment& syn, uint64_t now) {
  state = TcpState::syn_received;
  opened_ns = last_heard_ns = now;
  irs = syn.seq();
  receive.start(irs + 1);
  iss = layer.secrets().initial_sequence(key, now);
  ts_offset = layer.secrets().timestamp_offset(key);
  snd_una = iss;
  snd_nxt = iss + 1;
  recovery_point = iss;
  take_syn_options(syn.header.options);
  // RFC 7323 §2.2: the window of a SYN is never scaled.
  snd_wnd = max_snd_wnd = syn.header.window;
  snd_wl1 = syn.seq();
  snd_wl2 = iss;
  set_mss_from_route();
  ++layer.counters().passive_opens;
  send_syn(now);
  arm_retransmit(now);
}

void Connection::open_from_cookie(const Segment& ack, uint16_t cookie_mss,
                                  const SynCookies::Options& cookie, uint64_t now) {
  opened_ns = last_heard_ns = now;
  irs = ack.seq() - 1;
  receive.start(ack.seq());
  iss = ack.header.ack - 1;
  ts_offset = layer.secrets().timestamp_offset(key);
  snd_una = snd_nxt = ack.header.ack;
  recovery_point = snd_una;
  peer_mss = cookie_mss;
  ts_ok = ack.header.options.timestamps.has_value() && options.timestamps;
  if (ts_ok) {
    ts_recent = ack.header.options.timestamps->value;
    ts_recent_ns = now;
    ws_ok = cookie.window_scale.has_value();
    snd_wscale = cookie.window_scale.value_or(0);
    rcv_wscale = ws_ok ? window_shift_for(options.receive_buffer) : 0;
    sack_ok = cookie.sack && options.sack;
  }
  // The SYN-ACK advertised an unscaled window: rcv_adv is what it said.
  rcv_adv = rcv_offered = receive.next() + std::min(options.receive_buffer, max_unscaled_window);
  snd_wnd = max_snd_wnd = uint32_t(ack.header.window) << snd_wscale;
  snd_wl1 = ack.seq();
  snd_wl2 = ack.header.ack;
  set_mss_from_route();
  ++layer.counters().passive_opens;
  establish(now);
}

void Connection::establish(uint64_t now) {
  state = fin_queued ? TcpState::fin_wait_1 : TcpState::established;
  retransmit_at = never;
  rtt.reset_backoff();
  if (syn_retries > 0) rtt.after_syn_loss();
  cc.start(options.congestion, mss);
  ++layer.counters().established;
  layer.handshake_done(*this);
  arm_keepalive(now);
  notify(event::connected | (wants_writable ? event::writable : 0));
}

void Connection::enter_time_wait(uint64_t now) {
  // RFC 9293 §3.6.1: the 4-tuple is held for 2·MSL, by a small record
  // (time_wait.hpp) instead of this connection, which ends here for the
  // service (closed) and for the table. The ACK of the peer's FIN still
  // goes out from this object (input() sends it before returning).
  state = TcpState::time_wait;
  retransmit_at = persist_at = keepalive_at = delayed_ack_at = linger_at = never;
  layer.entered_time_wait(*this, now);
  if (visible()) {
    ended = true;
    close_reason = TcpCloseReason::closed;
    notify(event::closed);  // the buffers go once the service has read the last data
  } else {
    release_buffers();
  }
  layer.release(*this);
}

void Connection::release_buffers() {
  send.clear();
  receive.release();
}

void Connection::finish(TcpCloseReason reason) {
  if (state == TcpState::closed) return;
  if (state == TcpState::syn_received) layer.handshake_done(*this);
  state = TcpState::closed;
  retransmit_at = persist_at = keepalive_at = delayed_ack_at = linger_at = never;
  if (reason == TcpCloseReason::timed_out) ++layer.counters().connection_timeouts;
  if (visible()) {
    ended = true;
    close_reason = reason;
    notify(event::closed);
  }
  layer.release(*this);
}

// The service's calls.

std::size_t Connection::send_space() const {
  std::size_t queued = send.size();
  std::size_t room = options.send_buffer > queued ? options.send_buffer - queued : 0;
  return std::min(room, layer.budget().available());
}

std::size_t Connection::write(std::span<const uint8_t> data, uint64_t now) {
  std::size_t n = send.append(data.first(std::min(data.size(), send_space())), layer.budget());
  if (n < data.size()) wants_writable = true;
  if (n > 0) output(now);
  return n;
}

bool Connection::write(TcpBuffer buffer, uint64_t now) {
  if (send_space() == 0 || !send.append(std::move(buffer), layer.budget())) {
    wants_writable = true;
    return false;
  }
  output(now);
  return true;
}

void Connection::shutdown(uint64_t now) {
  if (fin_queued) return;
  fin_queued = true;
  // RFC 9293 §3.10.4 CLOSE: the FIN follows the queued data.
  if (state == TcpState::established)
    state = TcpState::fin_wait_1;
  else if (state == TcpState::close_wait)
    state = TcpState::last_ack;
  output(now);
}

void Connection::close(uint64_t now) {
  user_closed = true;
  on_read = nullptr;
  on_writable = nullptr;
  on_close = nullptr;
  on_connect = nullptr;
  // RFC 1122 §4.2.2.13, RFC 2525 §2.17 (and Linux): closing with data the
  // service never read resets the connection, so the peer knows it was not
  // taken. Data handed to on_read but not consumed() was not taken either;
  // with auto_consume, what on_read was given counts as read.
  uint32_t unread =
      receive.undelivered() + (options.auto_consume ? 0 : receive.unconsumed_delivered());
  if (unread > 0 && state != TcpState::syn_sent) {
    abort(now);
    return;
  }
  switch (state) {
    case TcpState::syn_sent:
      finish(TcpCloseReason::closed);
      return;
    case TcpState::fin_wait_2:
      // Orphaned: the peer gets a while to finish (Linux's tcp_fin_timeout).
      linger_at = now + uint64_t(std::chrono::nanoseconds(layer.limits().time_wait).count());
      layer.schedule(*this);
      return;
    default:
      shutdown(now);
      return;
  }
}

void Connection::abort(uint64_t now) {
  user_closed = true;
  on_read = nullptr;
  on_writable = nullptr;
  on_close = nullptr;
  on_connect = nullptr;
  // RFC 9293 §3.10.5 ABORT: <SEQ=SND.NXT><CTL=RST> in synchronized states.
  bool synchronized = state != TcpState::syn_sent && state != TcpState::closed &&
                      state != TcpState::time_wait && state != TcpState::listen;
  if (synchronized) send_reset();
  (void)now;
  finish(TcpCloseReason::closed);
}

void Connection::consume(uint32_t bytes, uint64_t now) {
  receive.consume(bytes);
  if (layer.budget().under_pressure()) receive.release_if_empty(layer.budget());
  // Tell the peer when reading opened a window that was closing: it at
  // least doubled (as Linux), by a useful amount (RFC 9293 §3.8.6.2.2
  // receiver SWS avoidance). Otherwise the next ACK carries it.
  uint32_t before = seq_gt(rcv_adv, rcv_nxt()) ? rcv_adv - rcv_nxt() : 0;
  uint32_t space =
      options.receive_buffer > receive.held() ? options.receive_buffer - receive.held() : 0;
  if (space >= 2 * before && space - before >= std::min(options.receive_buffer / 2, mss) &&
      (state == TcpState::established || state == TcpState::fin_wait_1 ||
       state == TcpState::fin_wait_2)) {
    ack_now = true;
    output(now);
  }
}

void Connection::set_buffers(uint32_t send_bytes, uint32_t receive_bytes, uint64_t now) {
  bool more_room = send_bytes > options.send_buffer;
  options.send_buffer = send_bytes;
  options.receive_buffer = receive_bytes;
  if (more_room && wants_writable && send_space() > 0) notify(event::writable);
  consume(0, now);
}

TcpStats Connection::statistics() const {
  TcpStats s = stats;
  s.state = state;
  s.mss = mss;
  s.srtt_us = uint32_t(rtt.srtt_us());
  s.rttvar_us = uint32_t(rtt.rttvar_us());
  s.rto_ms = uint32_t(rtt.rto_us() / 1000);
  s.cwnd = cc.cwnd();
  s.ssthresh = cc.ssthresh();
  s.send_window = snd_wnd;
  s.receive_window = seq_gt(rcv_adv, rcv_nxt()) ? rcv_adv - rcv_nxt() : 0;
  s.timestamps = ts_ok;
  s.sack = sack_ok;
  s.window_scale = ws_ok;
  return s;
}

}  // namespace net::tcp
