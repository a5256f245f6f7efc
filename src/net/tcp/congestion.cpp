#include "congestion.hpp"

#include <algorithm>
#include <cmath>

namespace net::tcp {
namespace {

// RFC 9438 §4.1, §4.5: the multiplicative decrease factor and the cubic
// scaling constant (segments per second cubed).
constexpr double cubic_beta = 0.7;
constexpr double cubic_c = 0.4;
constexpr double microseconds_per_second = 1e6;
// §4.3: the Reno-friendly region's additive increase, until W_est passes W_max.
constexpr double cubic_alpha = 3.0 * (1.0 - cubic_beta) / (1.0 + cubic_beta);
// §4.2: the target is at most 1.5 times the window (per RTT).
constexpr double cubic_max_growth = 1.5;

}  // namespace

void Congestion::start(TcpCongestion algorithm, uint32_t mss) {
  algorithm_ = algorithm;
  mss_ = mss;
  // RFC 6928 §2: min(10*MSS, max(2*MSS, 14600)).
  cwnd_ = std::min(initial_segments * mss, std::max(2 * mss, initial_max_bytes));
  ssthresh_ = UINT32_MAX;  // RFC 5681 §3.1: arbitrarily high
  acked_in_avoidance_ = 0;
  w_max_ = w_est_ = k_seconds_ = 0;
  epoch_start_us_ = 0;
}

void Congestion::on_ack(uint32_t acked, uint32_t flight, uint64_t now_us, uint64_t srtt_us) {
  // Grow only while the window is what limits the sender (as Linux's
  // tcp_is_cwnd_limited): an application-limited connection keeps its cwnd.
  if (uint64_t(flight) * 2 < cwnd_) return;
  if (in_slow_start()) {
    // RFC 5681 §3.1, RFC 3465 (L in segments as sent: sent_segment).
    cwnd_ += std::min(acked, abc_limit_segments * std::max(mss_, send_unit_));
    return;
  }
  if (algorithm_ == TcpCongestion::cubic) {
    cubic_avoidance(acked, now_us, srtt_us);
    return;
  }
  // RFC 5681 §3.1: one segment per window of data acknowledged.
  acked_in_avoidance_ += acked;
  if (acked_in_avoidance_ >= cwnd_) {
    acked_in_avoidance_ -= cwnd_;
    cwnd_ += mss_;
  }
}

void Congestion::cubic_avoidance(uint32_t acked, uint64_t now_us, uint64_t srtt_us) {
  double mss = mss_;
  double cwnd = double(cwnd_) / mss;  // segments
  if (epoch_start_us_ == 0) {
    epoch_start_us_ = now_us ? now_us : 1;
    w_est_ = cwnd;
    // §4.2: K is the time to grow from this window back to W_max.
    if (w_max_ > cwnd) {
      k_seconds_ = std::cbrt((w_max_ - cwnd) / cubic_c);
    } else {
      k_seconds_ = 0;
      w_max_ = cwnd;
    }
  }
  auto w_cubic = [this](double t) {
    double d = t - k_seconds_;
    return cubic_c * d * d * d + w_max_;
  };
  double t = double(now_us - epoch_start_us_) / microseconds_per_second;
  double rtt = double(srtt_us) / microseconds_per_second;
  double target = std::clamp(w_cubic(t + rtt), cwnd, cubic_max_growth * cwnd);
  // §4.3: the window Reno would have, growing by alpha per RTT.
  w_est_ += (w_est_ >= w_max_ ? 1.0 : cubic_alpha) * double(acked) / double(cwnd_);
  double next;
  if (w_cubic(t) < w_est_) {
    next = w_est_;  // the Reno-friendly region
  } else {
    next = cwnd + (target - cwnd) * double(acked) / double(cwnd_);  // §4.4, §4.5
  }
  cwnd_ = std::max(cwnd_, uint32_t(std::min(next * mss, double(UINT32_MAX / 2))));
}

void Congestion::reduce(uint32_t flight) {
  acked_in_avoidance_ = 0;
  if (algorithm_ == TcpCongestion::newreno) {
    ssthresh_ = std::max(flight / 2, 2 * mss_);  // RFC 5681 eqn (4)
    return;
  }
  // RFC 9438 §4.6, §4.7 (fast convergence): a window that did not reach
  // the last W_max leaves room to newer flows.
  double cwnd = double(cwnd_) / mss_;
  w_max_ = cwnd < w_max_ ? cwnd * (1.0 + cubic_beta) / 2.0 : cwnd;
  ssthresh_ = std::max(uint32_t(double(cwnd_) * cubic_beta), 2 * mss_);
  epoch_start_us_ = 0;
}

uint32_t Congestion::on_loss(uint32_t flight, uint64_t /*now_us*/) {
  reduce(flight);
  return ssthresh_;
}

void Congestion::on_timeout(uint32_t flight, uint64_t /*now_us*/) {
  reduce(flight);
  cwnd_ = mss_;  // RFC 5681 §3.1: LW = 1 segment
}

void Congestion::on_recovery_end(uint32_t flight) {
  // RFC 6582 §3.2 step 3, option (1): no burst after recovery.
  cwnd_ = std::min(ssthresh_, std::max(flight, mss_) + mss_);
  epoch_start_us_ = 0;
}

}  // namespace net::tcp
