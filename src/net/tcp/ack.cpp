// What an acknowledgment does (RFC 9293 §3.10.7.4, fifth check): the
// RFC 5961 §5.2 range check, the send window update, round-trip samples
// (RFC 6298, RFC 7323 §4), congestion control, and loss detection with
// its recovery: duplicate ACKs and SACK (RFC 5681 §3.2, RFC 6675 §5),
// NewReno's partial ACKs (RFC 6582 §3.2).
#include <algorithm>

#include "connection.hpp"
#include "seq.hpp"
#include "tcp_layer.hpp"

namespace net::tcp {
namespace {

namespace flag = wire::tcp_flag;
// A timestamp echo further back than this is not a round trip of ours.
constexpr uint32_t max_timestamp_rtt_ms = 60'000;
constexpr uint64_t ns_per_us = 1000, us_per_ms = 1000;

}  // namespace

bool Connection::ack_acceptable(const Segment& s, uint64_t now) {
  uint32_t ack = s.header.ack;
  if (probe_end != 0 && seq_gt(ack, snd_nxt) && seq_le(ack, probe_end)) {
    snd_nxt = ack;  // the peer took a window probe's byte
  }
  // RFC 5961 §5.2: acceptable from SND.UNA - MAX.SND.WND up to SND.NXT;
  // an ACK of what was never sent, or far older than the window, is
  // answered with a (rate-limited) challenge ACK that says where we are.
  if (seq_gt(ack, snd_nxt) || seq_lt(ack, snd_una - max_snd_wnd)) {
    ++layer.counters().drop_bad_ack;
    challenge_ack(now);
    return false;
  }
  return true;
}

bool Connection::input_ack(const Segment& s, uint64_t now) {
  uint32_t ack = s.header.ack;
  uint32_t window_before = snd_wnd;
  if (seq_lt(snd_wl1, s.seq()) || (snd_wl1 == s.seq() && seq_le(snd_wl2, ack))) {
    snd_wnd = uint32_t(s.header.window) << snd_wscale;
    max_snd_wnd = std::max(max_snd_wnd, snd_wnd);
    snd_wl1 = s.seq();
    snd_wl2 = ack;
  }
  uint32_t newly_sacked = 0;
  if (sack_ok && s.header.options.sack_count > 0) {
    newly_sacked = scoreboard.update(s.header.options, seq_max(snd_una, ack), snd_nxt);
  }
  uint32_t flight = snd_nxt - snd_una;
  if (seq_gt(ack, snd_una)) {
    new_ack(s, ack - snd_una, flight, now);
  } else if (ack == snd_una && flight > 0 && s.payload.empty() && !s.has(flag::syn) &&
             !s.has(flag::fin) && (sack_ok ? newly_sacked > 0 : snd_wnd == window_before)) {
    // RFC 5681 §2 (and RFC 6675 §2 with SACK: it must SACK new data).
    duplicate_ack(now);
  }
  if (snd_wnd > 0 && (persist_at != never || probe_end != 0)) {
    persist_at = never;  // the window opened: probing is over
    persist_backoff = 0;
    probe_end = 0;
  }
  return state != TcpState::closed;
}

void Connection::take_rtt_sample(const Segment& s, uint32_t ack, uint64_t now) {
  // A timed segment (never a retransmitted one: Karn) gives a sample to
  // the microsecond; otherwise the timestamp echo does, to the ms.
  if (rtt_timing && seq_gt(ack, rtt_seq)) {
    rtt_timing = false;
    rtt.sample((now - rtt_start_ns) / ns_per_us);
    return;
  }
  const auto& ts = s.header.options.timestamps;
  if (ts_ok && ts && ts->echo != 0 && seq_gt(ack, snd_una)) {
    uint32_t elapsed = uint32_t(now_ms(now)) + ts_offset - ts->echo;
    if (elapsed < max_timestamp_rtt_ms) rtt.sample(uint64_t(elapsed) * us_per_ms);
  }
}

void Connection::new_ack(const Segment& s, uint32_t acked, uint32_t flight, uint64_t now) {
  uint32_t ack = s.header.ack;
  take_rtt_sample(s, ack, now);
  uint32_t data = std::min<uint32_t>(acked, uint32_t(send.size()));
  bool fin_acked = fin_sent && seq_gt(ack, fin_seq);
  send.drop_front(data);
  stats.bytes_acked += data;
  snd_una = ack;
  scoreboard.advance(snd_una);
  stalled_since_ns = 0;
  dup_acks = 0;
  uint64_t now_us = now / ns_per_us;
  switch (recovery) {
    case Recovery::none:
      cc.on_ack(acked, flight, now_us, rtt.srtt_us());
      break;
    case Recovery::loss:
      cc.on_ack(acked, flight, now_us, rtt.srtt_us());  // slow start again
      if (seq_ge(ack, recovery_point)) recovery = Recovery::none;
      break;
    case Recovery::fast:
      if (seq_ge(ack, recovery_point)) {
        recovery = Recovery::none;
        cc.on_recovery_end(snd_nxt - snd_una);
      }
      break;  // a partial ACK: the pipe falls, send_recovery() sends more
    case Recovery::newreno:
      if (seq_ge(ack, recovery_point)) {
        recovery = Recovery::none;
        cc.on_recovery_end(snd_nxt - snd_una);
        break;
      }
      // RFC 6582 §3.2 step 5: a partial ACK. The next hole goes out now;
      // cwnd deflates by what was acknowledged and adds one segment back.
      retransmit(snd_una, mss, now);
      cc.set_cwnd(cc.cwnd() - std::min(cc.cwnd(), acked) + (acked >= mss ? mss : 0));
      break;
  }
  // RFC 6298 (5.2), (5.3): the timer follows the oldest unacknowledged data.
  retransmit_at = never;
  if (snd_una != snd_nxt) arm_retransmit(now);
  if (wants_writable && send_space() > 0 && visible()) {
    wants_writable = false;
    notify(event::writable);
  }
  if (fin_acked) after_fin_acked(now);
}

void Connection::after_fin_acked(uint64_t now) {
  switch (state) {
    case TcpState::fin_wait_1:
      state = TcpState::fin_wait_2;
      if (user_closed) {
        linger_at = now + uint64_t(std::chrono::nanoseconds(layer.limits().time_wait).count());
      }
      break;
    case TcpState::closing:
      enter_time_wait(now);
      break;
    case TcpState::last_ack:
      finish(TcpCloseReason::closed);
      break;
    default:
      break;
  }
}

void Connection::duplicate_ack(uint64_t now) {
  ++dup_acks;
  ++stats.dup_acks_received;
  switch (recovery) {
    case Recovery::newreno:
      cc.set_cwnd(cc.cwnd() + mss);  // RFC 6582 §3.2 step 4: inflate
      return;
    case Recovery::fast:
    case Recovery::loss:
      return;  // the pipe says what to send
    case Recovery::none:
      break;
  }
  bool lost = sack_ok && seq_gt(scoreboard.lost_boundary(snd_una, mss), snd_una);
  // RFC 6582 §3.2 step 2: not again for the window a recovery (or a
  // timeout) already dealt with.
  if ((dup_acks >= Scoreboard::dup_threshold || lost) && seq_ge(snd_una, recovery_point)) {
    enter_recovery(now);
  }
  // Otherwise RFC 3042 limited transmit: send_new_data() allows a segment
  // past cwnd for each of the first two.
}

void Connection::enter_recovery(uint64_t now) {
  ++layer.counters().fast_retransmits;
  ++stats.fast_retransmits;
  uint32_t ssthresh = cc.on_loss(snd_nxt - snd_una, now / ns_per_us);
  recovery_point = snd_nxt;
  high_rxt = snd_una;
  if (sack_ok) {
    // RFC 6675 §5 steps 4.2-4.3: cwnd = ssthresh, the first segment at once.
    recovery = Recovery::fast;
    ++stats.sack_recoveries;
    cc.set_cwnd(ssthresh);
    retransmit(snd_una, mss, now);
  } else {
    // RFC 6582 §3.2 step 3 (RFC 5681 §3.2 steps 2-3).
    recovery = Recovery::newreno;
    retransmit(snd_una, mss, now);
    cc.set_cwnd(ssthresh + Scoreboard::dup_threshold * mss);
  }
}

}  // namespace net::tcp
