// The retransmission timer's value from round-trip samples (RFC 6298 §2):
// SRTT and RTTVAR with gains 1/8 and 1/4, RTO = SRTT + max(G, 4·RTTVAR),
// bounded below by 200 ms (as Linux; RFC 6298 (2.4) asks 1 s, which makes
// a lost tail on a LAN cost seconds) and above by 60 s (2.5), doubled per
// expiry (5.5) until a new sample arrives. After a SYN or SYN-ACK had to be
// sent again, the RTO is at least 3 s until data gives a sample (5.7).
#pragma once
#include <algorithm>
#include <cstdint>

namespace net::tcp {

class RttEstimator {
 public:
  static constexpr uint64_t initial_rto_us = 1'000'000;  // RFC 6298 (2.1)
  static constexpr uint64_t min_rto_us = 200'000;
  static constexpr uint64_t max_rto_us = 60'000'000;
  static constexpr uint64_t granularity_us = 1'000;             // G: timestamps tick in ms
  static constexpr uint64_t after_syn_loss_rto_us = 3'000'000;  // RFC 6298 (5.7)

  void sample(uint64_t rtt_us) {
    if (rtt_us == 0) rtt_us = 1;
    if (!measured_) {
      srtt_us_ = rtt_us;  // (2.2)
      rttvar_us_ = rtt_us / 2;
      measured_ = true;
    } else {  // (2.3)
      uint64_t delta = srtt_us_ > rtt_us ? srtt_us_ - rtt_us : rtt_us - srtt_us_;
      rttvar_us_ = (3 * rttvar_us_ + delta) / 4;
      srtt_us_ = (7 * srtt_us_ + rtt_us) / 8;
    }
    backoff_ = 0;
    floor_us_ = 0;
  }
  // RFC 6298 (5.7): the handshake's SYN (or SYN-ACK) was sent again; data
  // transmission begins with an RTO of 3 s (a sample taken from the
  // handshake itself does not lift it; one from data does).
  void after_syn_loss() { floor_us_ = after_syn_loss_rto_us; }
  // The timer expired (5.5): the next RTO is twice as long.
  void back_off() {
    if (rto_us() < max_rto_us) ++backoff_;
  }
  void reset_backoff() { backoff_ = 0; }

  uint64_t rto_us() const {
    uint64_t base =
        measured_ ? srtt_us_ + std::max(granularity_us, 4 * rttvar_us_) : initial_rto_us;
    base = std::clamp(std::max(base, floor_us_), min_rto_us, max_rto_us);
    return std::min(base << std::min<uint32_t>(backoff_, 16), max_rto_us);
  }
  bool measured() const { return measured_; }
  uint64_t srtt_us() const { return srtt_us_; }
  uint64_t rttvar_us() const { return rttvar_us_; }
  uint32_t backoff() const { return backoff_; }

 private:
  uint64_t srtt_us_ = 0, rttvar_us_ = 0;
  uint64_t floor_us_ = 0;
  uint32_t backoff_ = 0;
  bool measured_ = false;
};

}  // namespace net::tcp
