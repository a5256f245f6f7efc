// A segment arrives at a connection: RFC 9293 §3.10.7.3 (SYN-SENT) and
// §3.10.7.4 (every other state) step by step, with RFC 5961's checks on
// RST, SYN and ACK, and RFC 7323's timestamps (PAWS, TS.Recent).
#include <algorithm>

#include "connection.hpp"
#include "net/stack_parts.hpp"
#include "seq.hpp"
#include "tcp_layer.hpp"

namespace net::tcp {
namespace {

namespace flag = wire::tcp_flag;

// RFC 7323 §5.5: TS.Recent older than 24 days is not used by PAWS.
constexpr uint64_t paws_idle_ns = 24ull * 24 * 3600 * 1'000'000'000;
// RFC 5681 §4.2: an ACK may be delayed, but less than 500 ms; 40 ms as Linux.
constexpr uint64_t delayed_ack_ns = 40'000'000;
// ACKs for out-of-window segments without data and challenge ACKs, at most
// one per connection this often (an ACK storm between two confused peers;
// Linux's tcp_invalid_ratelimit).
constexpr uint64_t out_of_window_ack_interval_ns = 500'000'000;

}  // namespace

void Connection::input(const Segment& s, uint64_t now) {
  ++stats.segments_received;
  stats.largest_segment_received =
      std::max(stats.largest_segment_received, uint32_t(s.payload.size()));
  last_heard_ns = now;
  keepalives_unanswered = 0;
  probing_since_ns = never;  // (an answer to a window probe, or anything else)
  if (state == TcpState::syn_sent) {
    input_syn_sent(s, now);
    if (state != TcpState::closed) output(now);
    return;
  }
  // RFC 5961 §4.2: a SYN in a synchronized state, whatever its number, is
  // answered with a challenge ACK. In SYN-RECEIVED the peer's own SYN
  // again means our SYN-ACK was lost: send it again.
  if (s.has(flag::syn) && !s.has(flag::rst)) {
    if (state == TcpState::syn_received && s.seq() == irs) {
      bool acks_our_syn =
          s.has(flag::ack) && seq_lt(snd_una, s.header.ack) && seq_le(s.header.ack, snd_nxt);
      if (!acks_our_syn) {
        send_syn(now);
        return;
      }
      // Simultaneous open: the peer's SYN-ACK acknowledges our SYN.
      take_timestamp(s, now);
      take_rtt_sample(s, s.header.ack, now);
      snd_una = s.header.ack;
      snd_wnd = max_snd_wnd = s.header.window;  // a SYN's window: unscaled
      snd_wl1 = s.seq();
      snd_wl2 = s.header.ack;
      ack_now = true;
      establish(now);
      output(now);
      return;
    }
    ++layer.counters().drop_bad_syn;
    challenge_ack(now);
    return;
  }
  if (!acceptable(s, now)) return;
  if (s.has(flag::rst)) {
    input_rst(s);
    return;
  }
  if (!s.has(flag::ack)) {
    ++layer.counters().drop_no_ack;
    return;
  }
  if (state == TcpState::syn_received) {
    // RFC 9293 §3.10.7.4, fifth check: the ACK of our SYN completes the
    // handshake; anything else gets a reset.
    if (!(seq_lt(snd_una, s.header.ack) && seq_le(s.header.ack, snd_nxt))) {
      ++layer.counters().drop_bad_ack;
      layer.send_reset(key, s);
      return;
    }
    take_timestamp(s, now);
    take_rtt_sample(s, s.header.ack, now);
    snd_una = s.header.ack;
    snd_wnd = uint32_t(s.header.window) << snd_wscale;
    max_snd_wnd = std::max(max_snd_wnd, snd_wnd);
    snd_wl1 = s.seq();
    snd_wl2 = s.header.ack;
    establish(now);
  } else {
    // RFC 9293 §3.10.7.4 fifth check, RFC 5961 §5.2: an ACK that is not
    // acceptable is answered and the segment dropped before anything of it
    // counts; TS.Recent included (RFC 7323 §4.3), or one blind segment with
    // a high TSval would make PAWS drop the peer's real data.
    if (!ack_acceptable(s, now)) return;
    take_timestamp(s, now);
  }
  if (!input_ack(s, now) || state == TcpState::closed) return;
  if (!s.payload.empty()) input_text(s, now);
  if (s.has(flag::fin) && state != TcpState::closed) {
    input_fin(s.seq() + uint32_t(s.payload.size()), now);
  }
  if (state != TcpState::closed) output(now);
}

void Connection::input_syn_sent(const Segment& s, uint64_t now) {
  const wire::TcpRepr& h = s.header;
  if (s.has(flag::ack) && (seq_le(h.ack, iss) || seq_gt(h.ack, snd_nxt))) {
    ++layer.counters().drop_bad_ack;
    if (!s.has(flag::rst)) layer.send_reset(key, s);
    return;
  }
  if (s.has(flag::rst)) {
    // RFC 5961 §3.2: in SYN-SENT a RST counts only if it acknowledges our SYN.
    if (s.has(flag::ack)) {
      ++layer.counters().rx_resets;
      finish(TcpCloseReason::refused);
    } else {
      ++layer.counters().drop_bad_rst;
    }
    return;
  }
  if (!s.has(flag::syn)) {
    ++layer.counters().drop_no_ack;
    return;
  }
  irs = s.seq();
  receive.start(irs + 1);
  take_syn_options(h.options);
  if (!ws_ok) rcv_wscale = 0;  // RFC 7323 §2.2: both or neither
  // RFC 7323 §2.2: the window of a SYN is never scaled.
  snd_wnd = max_snd_wnd = h.window;
  snd_wl1 = s.seq();
  snd_wl2 = h.ack;
  set_mss_from_route();
  if (!s.has(flag::ack)) {
    // Simultaneous open (RFC 9293 §3.5, figure 8): SYN-ACK from here.
    state = TcpState::syn_received;
    send_syn(now);
    arm_retransmit(now);
    return;
  }
  take_rtt_sample(s, h.ack, now);
  snd_una = h.ack;
  ack_now = true;
  establish(now);
  if (!s.payload.empty()) input_text(s, now);
  if (s.has(flag::fin)) input_fin(s.seq() + 1 + uint32_t(s.payload.size()), now);
}

bool Connection::acceptable(const Segment& s, uint64_t now) {
  const auto& ts = s.header.options.timestamps;
  // RFC 7323 §5.3 R1: PAWS, unless TS.Recent is too old to mean anything.
  if (ts_ok && ts && !s.has(flag::rst) && now - ts_recent_ns < paws_idle_ns &&
      seq_lt(ts->value, ts_recent)) {
    ++layer.counters().drop_paws;
    if (!s.payload.empty() || may_ack_out_of_window(now)) {
      ack_now = true;
      output(now);
    }
    return false;
  }
  uint32_t nxt = rcv_nxt();
  uint32_t wnd = seq_gt(rcv_adv, nxt) ? rcv_adv - nxt : 0;
  // What the peer may have sent into: the furthest edge we offered (the
  // window moves back by less than a unit at times). Data past rcv_adv is
  // trimmed when stored; the segment's ACK still counts.
  uint32_t offered = seq_gt(rcv_offered, nxt) ? rcv_offered - nxt : 0;
  uint32_t len = s.len();
  bool ok;
  if (s.has(flag::rst)) {
    // RFC 5961 §3.2: a RST is judged by its sequence number alone.
    ok = wnd == 0 ? s.seq() == nxt : seq_in(s.seq(), nxt, nxt + wnd);
  } else if (len == 0) {
    // As Linux judges them: from the RCV.NXT we last acknowledged (an ACK
    // the peer sent before data that overtook it still counts) up to the
    // right edge included (a peer that filled the window sends its ACKs
    // with SEG.SEQ there). RFC 9293 §3.10.7.4: "special allowance should
    // be made to accept valid ACKs" when the window is closed.
    ok = seq_le(last_ack_sent, s.seq()) && seq_le(s.seq(), nxt + offered);
  } else if (offered == 0) {
    ok = s.seq() == nxt;  // its ACK counts, its data finds no room
  } else {
    ok = seq_in(s.seq(), nxt, nxt + offered) || seq_in(s.seq() + len - 1, nxt, nxt + offered);
  }
  if (ok) return true;
  ++layer.counters().drop_out_of_window;
  if (s.has(flag::rst)) return false;
  if (!s.payload.empty() || may_ack_out_of_window(now)) {
    ack_now = true;
    output(now);
  } else {
    ++layer.counters().drop_rate_limited;
  }
  return false;
}

bool Connection::may_ack_out_of_window(uint64_t now) {
  if (last_oow_ack_ns != never && now - last_oow_ack_ns < out_of_window_ack_interval_ns)
    return false;
  last_oow_ack_ns = now;
  return true;
}

void Connection::take_timestamp(const Segment& s, uint64_t now) {
  // RFC 7323 §4.3: TS.Recent follows the peer's clock for segments that
  // reach the left edge of the window.
  const auto& ts = s.header.options.timestamps;
  if (ts_ok && ts && seq_ge(ts->value, ts_recent) && seq_le(s.seq(), last_ack_sent)) {
    ts_recent = ts->value;
    ts_recent_ns = now;
  }
}

void Connection::input_rst(const Segment& s) {
  // RFC 5961 §3.2: reset only at exactly RCV.NXT; elsewhere in the window
  // a challenge ACK lets a real peer answer with the right number.
  if (s.seq() != rcv_nxt()) {
    ++layer.counters().drop_bad_rst;
    challenge_ack(layer.now());
    return;
  }
  ++layer.counters().rx_resets;
  bool active = listener_slot == UINT32_MAX;
  finish(state == TcpState::syn_received && active ? TcpCloseReason::refused
                                                   : TcpCloseReason::reset);
}

void Connection::input_text(const Segment& s, uint64_t now) {
  if (state != TcpState::established && state != TcpState::fin_wait_1 &&
      state != TcpState::fin_wait_2) {
    return;  // RFC 9293: after the peer's FIN, text is ignored
  }
  if (peer_fin) return;
  if (user_closed) {
    // Nobody will read it: tell the peer (Linux does the same).
    ++layer.counters().drop_after_close;
    abort(now);
    return;
  }
  uint32_t before = receive.next();
  bool had_holes = receive.has_out_of_order();
  uint32_t consumed = receive.next() - receive.held();
  uint32_t limit =
      std::max(options.receive_buffer, seq_gt(rcv_adv, consumed) ? rcv_adv - consumed : 0);
  // A service that holds data until it consumes it gets the whole ring at
  // once (the buffer, and the window's rounding to its scale): it never
  // has to move under the spans the service keeps.
  uint32_t at_least = options.auto_consume ? 0 : options.receive_buffer + (1u << rcv_wscale);
  switch (receive.store(s.seq(), s.payload, limit, layer.budget(), at_least)) {
    case ReceiveBuffer::Stored::ok:
      break;
    case ReceiveBuffer::Stored::no_memory:
      ++layer.counters().drop_memory;
      ack_now = true;
      return;
    case ReceiveBuffer::Stored::too_many_ranges:
      ++layer.counters().drop_too_many_holes;
      ack_now = true;
      return;
  }
  uint32_t in_order = receive.next() - before;
  if (seq_gt(s.seq(), before)) {
    // RFC 5681 §4.2: out-of-order data is acknowledged at once (the
    // duplicate ACK, with SACK blocks, is what the sender recovers by).
    ++layer.counters().rx_out_of_order;
    ++stats.out_of_order_segments;
    ack_now = true;
  } else if (had_holes || in_order == 0) {
    ack_now = true;  // it filled (part of) a hole, or was all old
  } else {
    // RFC 5681 §4.2, RFC 1122 §4.2.3.2: every second full-sized segment,
    // else within 40 ms. A segment longer than an MSS is several the host
    // coalesced (decision 0093): it counts as that many, so it is
    // acknowledged at once, and it does not raise the full size.
    unacked_bytes += in_order;
    rcv_mss = std::max(rcv_mss, std::min(uint32_t(s.payload.size()), mss));
    if (unacked_bytes >= 2 * rcv_mss) {
      ack_now = true;
    } else if (delayed_ack_at == never) {
      delayed_ack_at = now + delayed_ack_ns;
      layer.schedule(*this);
    }
  }
  if (in_order > 0) {
    stats.bytes_received += in_order;
    notify(event::readable);
  }
  if (peer_fin_pending && receive.next() == peer_fin_seq) apply_fin(now);
}

void Connection::input_fin(uint32_t fin, uint64_t now) {
  if (peer_fin) return;
  if (fin != receive.next()) {
    peer_fin_pending = true;  // data before it is missing
    peer_fin_seq = fin;
    ack_now = true;
    return;
  }
  apply_fin(now);
}

void Connection::apply_fin(uint64_t now) {
  peer_fin = true;
  peer_fin_pending = false;
  ack_now = true;
  notify(event::readable);  // the end of the stream
  switch (state) {
    case TcpState::syn_received:
    case TcpState::established:
      state = TcpState::close_wait;
      break;
    case TcpState::fin_wait_1:
      if (fin_sent && seq_gt(snd_una, fin_seq))
        enter_time_wait(now);
      else
        state = TcpState::closing;  // simultaneous close
      break;
    case TcpState::fin_wait_2:
      enter_time_wait(now);
      break;
    default:
      break;
  }
}

void Connection::challenge_ack(uint64_t now) {
  // RFC 5961 §7: rate-limited per connection first (Linux's
  // tcp_invalid_ratelimit), then host-wide.
  if (!may_ack_out_of_window(now) || !layer.allow_challenge_ack(now)) {
    ++layer.counters().drop_rate_limited;
    return;
  }
  ++layer.counters().challenge_acks;
  ack_now = true;
  output(now);
}

}  // namespace net::tcp
