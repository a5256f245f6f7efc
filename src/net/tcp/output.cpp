// What a connection sends now: new data within the send and congestion
// windows (Nagle, RFC 9293 §3.7.4; sender SWS avoidance, §3.8.6.2.1;
// limited transmit, RFC 3042), the loss recovery's retransmissions (RFC
// 6675 §5 NextSeg and the pipe), the ACKs it owes, SYN and SYN-ACK, and the
// window it advertises (receiver SWS avoidance, §3.8.6.2.2). New data may
// leave in TSO segments of many MSS (TcpLayer::segment_limit); recovery
// retransmits and sends one MSS at a time, as the pipe counts it.
#include <algorithm>

#include "connection.hpp"
#include "seq.hpp"
#include "tcp_layer.hpp"

namespace net::tcp {
namespace {

namespace flag = wire::tcp_flag;
constexpr uint32_t max_unscaled_window = 65535;
// RFC 2018 §3: SACK blocks beside timestamps, and without.
constexpr uint32_t sack_blocks_with_timestamps = 3;

bool sends_data(TcpState s) {
  return s == TcpState::established || s == TcpState::close_wait || s == TcpState::fin_wait_1 ||
         s == TcpState::closing || s == TcpState::last_ack;
}

}  // namespace

void Connection::output(uint64_t now) {
  if (state == TcpState::closed || state == TcpState::listen || state == TcpState::syn_sent) {
    return;  // SYNs and their retransmissions are sent where the state changes
  }
  if (state == TcpState::syn_received) {
    // No data before the handshake completes, but the ACKs RFC 5961 asks
    // for are due here too (a challenge for an in-window RST or SYN, §3.2
    // and §4.2; an answer to an out-of-window segment, RFC 9293 §3.10.7.4):
    // <SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>.
    if (ack_now && !link_blocked) transmit(snd_nxt, 0, 0, now);
    layer.schedule(*this);
    return;
  }
  uint64_t sent_before = stats.segments_sent;
  if (sends_data(state) && !link_blocked) {
    if (recovery == Recovery::fast || recovery == Recovery::loss)
      send_recovery(now);
    else
      send_new_data(now);
  }
  if (ack_now && stats.segments_sent == sent_before && !link_blocked) {
    transmit(snd_nxt, 0, 0, now);  // every segment carries the ACK; none went
  }
  if (snd_una == snd_nxt) {
    retransmit_at = never;
  } else if (retransmit_at == never && persist_at == never) {
    arm_retransmit(now);
  }
  // Data waits and nothing is in flight to bring an ACK: the window is
  // zero (RFC 9293 §3.8.6.1), or too small for SWS avoidance to use it
  // (RFC 1122 §4.2.3.4's override timeout). The persist timer comes back.
  uint32_t end = queued_end();
  bool unsent = seq_gt(end, snd_nxt) || (fin_queued && !fin_sent);
  if (unsent && snd_una == snd_nxt && persist_at == never && sends_data(state) && !link_blocked) {
    persist_at = now + std::min<uint64_t>(rtt.rto_us(), RttEstimator::max_rto_us) * 1000;
  }
  layer.schedule(*this);
}

void Connection::send_new_data(uint64_t now) {
  for (;;) {
    uint32_t end = queued_end();
    uint32_t unsent = seq_gt(end, snd_nxt) ? end - snd_nxt : 0;
    uint32_t cwnd = cc.cwnd();
    // RFC 3042: the first two duplicate ACKs each let one more segment out.
    if (recovery == Recovery::none) cwnd += std::min<uint32_t>(dup_acks, 2) * mss;
    uint32_t limit = snd_una + std::min(snd_wnd, cwnd);
    uint32_t usable = seq_gt(limit, snd_nxt) ? limit - snd_nxt : 0;
    // With TSO one segment carries many MSS (the NIC cuts it): whole MSS
    // only, so a short tail meets the same Nagle and SWS rules as without.
    uint32_t len = std::min({unsent, segment_max, usable});
    if (len > mss && len % mss != 0 && !(len == unsent && (options.no_delay || fin_queued)))
      len -= len % mss;
    bool fin = fin_queued && !fin_sent && len == unsent;
    if (len == 0 && !fin) return;
    if (len < mss && !fin) {
      bool everything = len == unsent;
      bool idle = snd_nxt == snd_una;
      // SWS avoidance: a piece the window cut short waits for more window,
      // unless it is half the largest window the peer ever offered.
      if (!everything && len < max_snd_wnd / 2) return;
      // Nagle: a small last piece waits while data is unacknowledged.
      if (everything && !idle && !options.no_delay) return;
    }
    uint8_t flags = (len > 0 && len == unsent) ? flag::psh : 0;
    if (fin) flags |= flag::fin;
    if (!transmit(snd_nxt, len, flags, now)) return;
    snd_nxt += len;
    if (fin) {
      fin_sent = true;
      fin_seq = snd_nxt++;
      return;
    }
  }
}

void Connection::send_recovery(uint64_t now) {
  for (;;) {
    uint32_t lost_below =
        recovery == Recovery::loss ? recovery_point : scoreboard.lost_boundary(snd_una, mss);
    uint32_t pipe = scoreboard.pipe(snd_una, snd_nxt, high_rxt, lost_below);
    if (uint64_t(pipe) + mss > cc.cwnd()) return;  // (C): cwnd - pipe >= 1 SMSS
    // NextSeg rule 1: the first lost, unSACKed, not yet retransmitted data.
    uint32_t from = scoreboard.skip_sacked(seq_max(high_rxt, snd_una));
    while (from != scoreboard.skip_sacked(from)) from = scoreboard.skip_sacked(from);
    if (seq_lt(from, lost_below)) {
      uint32_t hole_end = scoreboard.next_sacked(from, lost_below);
      if (!retransmit(from, std::min(mss, hole_end - from), now)) return;
      continue;
    }
    // Rule 2: new data, if the receiver's window takes it.
    uint32_t end = queued_end();
    uint32_t unsent = seq_gt(end, snd_nxt) ? end - snd_nxt : 0;
    uint32_t limit = snd_una + snd_wnd;
    uint32_t usable = seq_gt(limit, snd_nxt) ? limit - snd_nxt : 0;
    uint32_t len = std::min({unsent, mss, usable});
    bool fin = fin_queued && !fin_sent && len == unsent;
    if (len > 0 || fin) {
      uint8_t flags = (len > 0 && len == unsent ? flag::psh : 0) | (fin ? flag::fin : 0);
      if (!transmit(snd_nxt, len, flags, now)) return;
      snd_nxt += len;
      if (fin) {
        fin_sent = true;
        fin_seq = snd_nxt++;
      }
      continue;
    }
    // Rule 3: an unSACKed hole below the highest SACK, lost or not.
    uint32_t top = scoreboard.highest_sacked(snd_una);
    if (recovery == Recovery::fast && seq_lt(from, top)) {
      uint32_t hole_end = scoreboard.next_sacked(from, top);
      if (!retransmit(from, std::min(mss, hole_end - from), now)) return;
      continue;
    }
    return;
  }
}

bool Connection::retransmit(uint32_t seq, uint32_t max_len, uint64_t now) {
  uint32_t end = queued_end();
  uint32_t len = seq_lt(seq, end) ? std::min(max_len, end - seq) : 0;
  uint8_t flags = (len > 0 && seq + len == end) ? flag::psh : 0;
  if (fin_sent && seq + len == fin_seq) flags |= flag::fin;
  if (len == 0 && !(flags & flag::fin)) return false;
  if (!transmit(seq, len, flags, now)) return false;
  high_rxt = seq_max(high_rxt, seq + len + ((flags & flag::fin) ? 1 : 0));
  ++stats.retransmits;
  ++layer.counters().retransmits;
  rtt_timing = false;  // Karn: no sample from a retransmitted range
  return true;
}

bool Connection::transmit(uint32_t seq, uint32_t len, uint8_t flags, uint64_t now) {
  auto path = layer.route(key);
  if (!path) {
    ++layer.counters().drop_tx_failed;
    return false;
  }
  if (layer.congested(*path)) {
    layer.wait_for_link(*this);
    return false;
  }
  wire::TcpRepr h{key.local_port,
                  key.remote_port,
                  seq,
                  rcv_nxt(),
                  uint8_t(flags | flag::ack),
                  advertise_window(),
                  0,
                  {},
                  len};
  if (ts_ok) h.options.timestamps = wire::TcpTimestamps{tsval(now), ts_recent};
  if (sack_ok && receive.has_out_of_order()) {
    receive.sack_blocks(h.options, ts_ok ? sack_blocks_with_timestamps : wire::tcp_max_sack_blocks);
  }
  if (!layer.send(*path, key, h, &send, seq - snd_una, mss)) return false;
  if (len > mss) cc.sent_segment(len);
  last_ack_sent = h.ack;
  ack_now = false;
  unacked_bytes = 0;
  delayed_ack_at = never;
  ++stats.segments_sent;
  stats.bytes_sent += len;
  if (len > 0 && !rtt_timing && seq == snd_nxt) {
    rtt_timing = true;
    rtt_seq = seq;
    rtt_start_ns = now;
  }
  return true;
}

void Connection::send_syn(uint64_t now) {
  auto path = layer.route(key);
  if (!path) {
    ++layer.counters().drop_tx_failed;
    return;
  }
  bool answer = state == TcpState::syn_received;
  wire::TcpRepr h{key.local_port,
                  key.remote_port,
                  iss,
                  answer ? rcv_nxt() : 0,
                  uint8_t(wire::tcp_flag::syn | (answer ? flag::ack : 0)),
                  uint16_t(std::min(options.receive_buffer, max_unscaled_window)),
                  0,
                  {},
                  0};
  h.options.mss =
      uint16_t(std::min<uint32_t>(layer.mtu(*path, key) - ip_tcp_headers(key), UINT16_MAX));
  // An active open offers everything; an answer only what the peer offered.
  if (!answer || ws_ok) h.options.window_scale = rcv_wscale;
  if (answer ? sack_ok : options.sack) h.options.sack_permitted = true;
  if (answer ? ts_ok : options.timestamps) {
    h.options.timestamps = wire::TcpTimestamps{tsval(now), answer ? ts_recent : 0};
  }
  if (answer) {
    // RFC 7323 §2.2: a SYN's window is not scaled.
    rcv_adv = rcv_offered = rcv_nxt() + h.window;
    last_ack_sent = h.ack;
  }
  if (!layer.send(*path, key, h)) return;
  ++stats.segments_sent;
  if (syn_retries == 0) {
    rtt_timing = true;
    rtt_seq = iss;
    rtt_start_ns = now;
  } else {
    rtt_timing = false;
  }
}

void Connection::send_reset() {
  // RFC 9293 §3.10.5 ABORT: <SEQ=SND.NXT><CTL=RST>.
  auto path = layer.route(key);
  wire::TcpRepr rst{key.local_port, key.remote_port, snd_nxt, 0, flag::rst, 0, 0, {}, 0};
  if (path && layer.send(*path, key, rst)) ++layer.counters().tx_resets;
}

uint16_t Connection::advertise_window() {
  uint32_t nxt = rcv_nxt();
  uint32_t held = receive.held();
  uint32_t space = options.receive_buffer > held ? options.receive_buffer - held : 0;
  // Offer only what could be stored now: the ring's free part and what the
  // budget still gives.
  uint64_t storable = uint64_t(receive.capacity() > held ? receive.capacity() - held : 0) +
                      layer.budget().available();
  space = uint32_t(std::min<uint64_t>(space, storable));
  uint32_t right = nxt + space;
  bool edge_behind = seq_lt(rcv_adv, nxt);
  if (edge_behind) rcv_adv = nxt;
  // RFC 9293 §3.8.6.2.2: the right edge never moves back, and moves
  // forward only by a useful amount (half the buffer or one segment).
  uint32_t step = std::min(options.receive_buffer / 2, mss);
  if (!seq_gt(right, rcv_adv) || (right - rcv_adv < step && !edge_behind)) right = rcv_adv;
  uint32_t window = right - nxt;
  uint32_t unit = 1u << rcv_wscale;
  // Rounded up to the scale's unit, so the kept edge does not move back;
  // but never past the buffer and one unit from the first unconsumed byte
  // (the ring a service holding its input has): rounded up again from each
  // new RCV.NXT, a kept edge would creep on by up to a unit per segment,
  // and the peer would send what we could only drop. The edge moves back
  // by less than a unit instead (RFC 7323 Appendix F; Linux does the same
  // since 6.5 for its receive buffer limit).
  uint32_t room = options.receive_buffer + unit - std::min(held, options.receive_buffer + unit);
  uint32_t field =
      std::min({(window + unit - 1) >> rcv_wscale, room >> rcv_wscale, max_unscaled_window});
  rcv_adv = nxt + (field << rcv_wscale);
  if (seq_gt(rcv_adv, rcv_offered)) rcv_offered = rcv_adv;
  return uint16_t(field);
}

}  // namespace net::tcp
