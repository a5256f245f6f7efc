// A connection's timers, kept as absolute deadlines (the layer asks the
// stack's clock for the earliest of all): retransmission (RFC 6298, and
// the SYN's), persist (zero-window probes, RFC 9293 §3.8.6.1), delayed
// ACKs, keepalive (RFC 9293 §3.8.4, RFC 1122 §4.2.3.6), TIME_WAIT (2·MSL)
// and an orphaned FIN_WAIT_2.
#include <algorithm>

#include "connection.hpp"
#include "seq.hpp"
#include "tcp_layer.hpp"

namespace net::tcp {
namespace {

constexpr uint64_t ns_per_ms = 1'000'000, ns_per_us = 1000;
// SYN-ACKs sent again before a handshake is given up (Linux's tcp_synack_retries).
constexpr uint32_t max_syn_ack_retries = 5;

uint64_t ns(std::chrono::seconds s) { return uint64_t(std::chrono::nanoseconds(s).count()); }

}  // namespace

uint64_t Connection::now_ms(uint64_t now) const { return now / ns_per_ms; }

uint64_t Connection::next_deadline() const {
  return std::min({retransmit_at, persist_at, delayed_ack_at, keepalive_at, linger_at});
}

void Connection::arm_retransmit(uint64_t now) {
  retransmit_at = now + rtt.rto_us() * ns_per_us;
  layer.schedule(*this);
}

void Connection::arm_keepalive(uint64_t now) {
  keepalive_at = options.keepalive ? now + ns(options.keepalive_idle) : never;
  layer.schedule(*this);
}

void Connection::set_keepalive(bool on, uint64_t now) {
  options.keepalive = on;
  bool alive_state = state == TcpState::established || state == TcpState::close_wait ||
                     state == TcpState::fin_wait_2;
  if (alive_state) arm_keepalive(now);
}

void Connection::on_timer(uint64_t now) {
  if (linger_at <= now) {
    linger_at = never;
    finish(TcpCloseReason::closed);  // TIME_WAIT is over; or FIN_WAIT_2 waited long enough
    return;
  }
  if (retransmit_at <= now) {
    retransmit_at = never;
    on_retransmit_timeout(now);
    if (state == TcpState::closed) return;
  }
  if (persist_at <= now) {
    persist_at = never;
    on_persist(now);
    if (state == TcpState::closed) return;
  }
  if (keepalive_at <= now) {
    keepalive_at = never;
    on_keepalive(now);
    if (state == TcpState::closed) return;
  }
  if (delayed_ack_at <= now) {
    delayed_ack_at = never;
    ack_now = true;
  }
  output(now);
}

void Connection::on_retransmit_timeout(uint64_t now) {
  if (state == TcpState::syn_sent || state == TcpState::syn_received) {
    bool passive = listener_slot != UINT32_MAX;
    bool give_up = passive ? syn_retries >= max_syn_ack_retries
                           : now - opened_ns >= ns(options.connect_timeout);
    if (give_up) {
      finish(TcpCloseReason::timed_out);
      return;
    }
    ++syn_retries;
    ++stats.retransmits;
    ++layer.counters().retransmits;
    rtt.back_off();
    send_syn(now);
    arm_retransmit(now);
    return;
  }
  if (snd_una == snd_nxt) return;
  if (stalled_since_ns == 0) {
    stalled_since_ns = now;
  } else if (now - stalled_since_ns >= ns(options.user_timeout)) {
    send_reset();  // RFC 9293 §3.8.3 (R2): give up, and tell the peer
    finish(TcpCloseReason::timed_out);
    return;
  }
  ++layer.counters().timeouts;
  ++stats.timeouts;
  // RFC 5681 §3.1 eqn (4): ssthresh falls on the first expiry only; the
  // window restarts from one segment.
  if (rtt.backoff() == 0)
    cc.on_timeout(snd_nxt - snd_una, now / ns_per_us);
  else
    cc.set_cwnd(mss);
  rtt.back_off();  // RFC 6298 (5.5)
  // RFC 6675 §5.1: a second expiry may mean the receiver dropped what it
  // SACKed; forget the SACKs and send everything again.
  if (rtt.backoff() > 1) scoreboard.clear();
  recovery = Recovery::loss;
  recovery_point = snd_nxt;
  high_rxt = snd_una;
  dup_acks = 0;
  rtt_timing = false;
  output(now);
  arm_retransmit(now);
}

void Connection::on_persist(uint64_t now) {
  uint32_t end = queued_end();
  bool waiting = seq_gt(end, snd_una) || (fin_queued && !fin_sent);
  if (!waiting) {
    persist_backoff = 0;
    return;
  }
  // RFC 9293 §3.8.6.1: never give up on a peer that answers its probes;
  // one that stays silent as long as the user timeout (or that we cannot
  // even reach) is gone.
  if (probing_since_ns == never) {
    probing_since_ns = now;
  } else if (now - probing_since_ns >= ns(options.user_timeout)) {
    send_reset();
    finish(TcpCloseReason::timed_out);
    return;
  }
  if (snd_wnd > 0 && snd_una == snd_nxt && seq_gt(end, snd_nxt)) {
    // RFC 1122 §4.2.3.4 (d): a window too small to be worth it is used
    // anyway once this timer ran out.
    uint32_t len = std::min({end - snd_nxt, snd_wnd, mss});
    if (transmit(snd_nxt, len, len == end - snd_nxt ? wire::tcp_flag::psh : 0, now)) snd_nxt += len;
    persist_backoff = 0;
    return;
  }
  if (snd_wnd > 0) return;
  // The probe is the next octet (RFC 9293 §3.8.6.1): the peer takes it if
  // its window opened, or answers with its window if not. It does not
  // count as sent (BSD pulls SND.NXT back the same way): an ACK of it
  // moves SND.NXT on; otherwise it goes again with the data.
  uint32_t at = seq_gt(end, snd_nxt) ? snd_nxt : snd_una;
  if (seq_gt(end, at) && transmit(at, 1, 0, now)) probe_end = at + 1;
  if (persist_backoff < 16) ++persist_backoff;
  uint64_t interval = std::min(rtt.rto_us() << persist_backoff, RttEstimator::max_rto_us);
  persist_at = now + interval * ns_per_us;
  retransmit_at = never;
  layer.schedule(*this);
}

void Connection::on_keepalive(uint64_t now) {
  bool alive_state = state == TcpState::established || state == TcpState::close_wait ||
                     state == TcpState::fin_wait_2;
  if (!options.keepalive || !alive_state) return;
  uint64_t idle = ns(options.keepalive_idle);
  if (keepalives_unanswered == 0 && now - last_heard_ns < idle) {
    keepalive_at = last_heard_ns + idle;  // heard from since: wait the rest
    return;
  }
  if (keepalives_unanswered >= options.keepalive_probes) {
    send_reset();  // in case the peer is there after all
    finish(TcpCloseReason::timed_out);
    return;
  }
  send_probe(now);
  ++keepalives_unanswered;
  keepalive_at = now + ns(options.keepalive_interval);
}

void Connection::send_probe(uint64_t now) {
  // RFC 1122 §4.2.3.6: SEG.SEQ = SND.NXT - 1 and no data, which the peer
  // must acknowledge.
  transmit(snd_una - 1, 0, 0, now);
}

}  // namespace net::tcp
