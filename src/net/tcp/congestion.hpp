// Congestion control, per connection: slow start and the loss responses of
// RFC 5681 shared by both algorithms, the congestion avoidance growth and
// the reduction factor of the one chosen: NewReno (RFC 5681 §3.1, halving)
// or CUBIC (RFC 9438, the default: β = 0.7, window growth a cubic function
// of the time since the last reduction, never slower than Reno's).
// Fast recovery itself (NewReno's RFC 6582 or SACK's RFC 6675) is the
// connection's (recovery.cpp); this class owns cwnd and ssthresh.
#pragma once
#include <algorithm>
#include <cstdint>
#include <net/tcp.hpp>

namespace net::tcp {

class Congestion {
 public:
  // RFC 6928: an initial window of 10 segments (at most 14600 bytes).
  static constexpr uint32_t initial_segments = 10;
  static constexpr uint32_t initial_max_bytes = 14600;
  // RFC 3465 §2.2: slow start counts up to L = 2 segments per ACK.
  static constexpr uint32_t abc_limit_segments = 2;

  void start(TcpCongestion algorithm, uint32_t mss);
  void set_algorithm(TcpCongestion algorithm) { algorithm_ = algorithm; }
  TcpCongestion algorithm() const { return algorithm_; }
  void set_mss(uint32_t mss) { mss_ = mss; }
  // The largest segment handed to a NIC that segments it (TSO): its peer sees
  // MSS-sized segments but may acknowledge the whole burst at once, so the
  // slow start limit L counts such segments, not MSS (as Linux counts
  // tcp_skb_pcount; docs/decisions/0092).
  void sent_segment(uint32_t bytes) { send_unit_ = std::max(send_unit_, bytes); }

  uint32_t cwnd() const { return cwnd_; }
  uint32_t ssthresh() const { return ssthresh_; }
  void set_cwnd(uint32_t bytes) { cwnd_ = bytes < mss_ ? mss_ : bytes; }
  bool in_slow_start() const { return cwnd_ < ssthresh_; }

  // New data acknowledged outside recovery: slow start or congestion
  // avoidance. `flight` is what was outstanding before the ACK (cwnd does
  // not grow while the sender is not using it, RFC 7661 in spirit).
  void on_ack(uint32_t acked, uint32_t flight, uint64_t now_us, uint64_t srtt_us);
  // Loss detected by duplicate ACKs or SACK: returns the new ssthresh
  // (cwnd is the recovery's to set).
  uint32_t on_loss(uint32_t flight, uint64_t now_us);
  // The retransmission timer expired: ssthresh reduced, cwnd one segment
  // (RFC 5681 §3.1, the loss window).
  void on_timeout(uint32_t flight, uint64_t now_us);
  // Recovery ended: cwnd back to ssthresh (at most flight + 1 segment).
  void on_recovery_end(uint32_t flight);

 private:
  void cubic_avoidance(uint32_t acked, uint64_t now_us, uint64_t srtt_us);
  void reduce(uint32_t flight);

  TcpCongestion algorithm_ = TcpCongestion::cubic;
  uint32_t mss_ = 536;
  uint32_t send_unit_ = 0;  // the largest segment sent (TSO), 0: none beyond MSS
  uint32_t cwnd_ = 0, ssthresh_ = UINT32_MAX;
  uint32_t acked_in_avoidance_ = 0;  // NewReno: bytes toward the next +1 segment
  // CUBIC (RFC 9438 §4), in bytes and microseconds.
  double w_max_ = 0;             // window before the last reduction
  double w_est_ = 0;             // the Reno-friendly estimate (§4.3)
  double k_seconds_ = 0;         // time to climb back to w_max
  uint64_t epoch_start_us_ = 0;  // 0: a new epoch starts with the next ACK
};

}  // namespace net::tcp
