// A segment for a 4-tuple in TIME-WAIT (RFC 9293 §3.10.7.4): the peer's
// FIN again is acknowledged and 2·MSL starts anew; a RST is ignored (RFC
// 1337); a new SYN may take the 4-tuple over (RFC 6191 with timestamps,
// RFC 1122 §4.2.2.13 without); anything else out of the window is
// answered with a rate-limited ACK, and in-window duplicates are dropped.
#include "net/stack_parts.hpp"
#include "seq.hpp"
#include "tcp_layer.hpp"

namespace net {
namespace {

namespace flag = wire::tcp_flag;
constexpr uint64_t ns_per_ms = 1'000'000;
// As Connection's out-of-window ACKs (Linux's tcp_invalid_ratelimit).
constexpr uint64_t ack_interval_ns = 500'000'000;

}  // namespace

bool TcpLayer::time_wait_input(tcp::TimeWaitRecord& r, const tcp::Segment& s, uint64_t t) {
  if (s.has(flag::rst)) {
    ++counters_.drop_bad_rst;
    return true;
  }
  const auto& ts = s.header.options.timestamps;
  if (s.has(flag::syn) && !s.has(flag::ack)) {
    bool newer =
        r.ts_ok && ts ? tcp::seq_gt(ts->value, r.ts_recent) : tcp::seq_gt(s.seq(), r.rcv_nxt);
    if (newer && find_listener(r.key.local_address(), r.key.local_port) != none) {
      ++counters_.time_wait_reused;
      time_waits_.remove(r.key);
      return false;
    }
    ++counters_.drop_bad_syn;  // an old duplicate: the ACK tells where we are
  } else if (r.ts_ok && ts && tcp::seq_lt(ts->value, r.ts_recent)) {
    ++counters_.drop_paws;  // RFC 7323 §5.3
  } else if (s.has(flag::fin) && s.seq() + s.len() == r.rcv_nxt) {
    // The peer's FIN again: our ACK of it was lost.
    ++counters_.drop_out_of_window;
    time_waits_.restart(r.key, t + uint64_t(std::chrono::nanoseconds(limits_.time_wait).count()));
    time_wait_ack(r, t);
    return true;
  } else if (s.seq() == r.rcv_nxt && s.payload.empty()) {
    ++counters_.drop_out_of_window;  // a duplicate ACK, nothing to answer
    return true;
  } else {
    ++counters_.drop_out_of_window;
  }
  if (r.last_ack_ns != UINT64_MAX && t - r.last_ack_ns < ack_interval_ns) {
    ++counters_.drop_rate_limited;
    return true;
  }
  r.last_ack_ns = t;
  time_wait_ack(r, t);
  return true;
}

void TcpLayer::time_wait_ack(const tcp::TimeWaitRecord& r, uint64_t t) {
  wire::TcpRepr h{
      r.key.local_port, r.key.remote_port, r.snd_nxt, r.rcv_nxt, flag::ack, r.window, 0, {}, 0};
  if (r.ts_ok) {
    h.options.timestamps = wire::TcpTimestamps{uint32_t(t / ns_per_ms) + r.ts_offset, r.ts_recent};
  }
  auto path = route(r.key);
  if (path) send(*path, r.key, h);
}

bool TcpLayer::in_use(const tcp::ConnectionKey& key) const {
  return table_.find(key) || time_waits_.contains(key);
}

}  // namespace net
