// Loss and its recovery on the sending side: fast retransmit and NewReno
// (RFC 5681 §3.2, RFC 6582), SACK-based recovery (RFC 6675), limited
// transmit (RFC 3042), the retransmission timer with Karn's rule and
// exponential backoff (RFC 6298), and giving up (the user timeout).
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

class TcpLoss : public TcpTest {
 protected:
  // Accepts a connection and has the service write `segments` full ones.
  TcpConnection sending(uint32_t segments, PeerOffer p = {}, TcpOptions o = {}) {
    TcpConnection c = accept(p, o);
    seg = p.timestamps ? data_mss : mss;
    EXPECT_EQ(*c.write(pattern(segments * seg)), segments * seg);
    total = segments * seg;
    return c;
  }
  uint32_t at(uint32_t n) const { return iss + 1 + n * seg; }  // segment n's sequence number
  // A segment we sent: segment n, `count` segments long.
  void expect_segment(uint32_t n, uint32_t count = 1) {
    SentSegment s = next();
    uint32_t len = count * seg;
    uint8_t flags = flag::ack | (at(n) + len == iss + 1 + total ? flag::psh : 0);
    EXPECT_EQ(s.header, from_us(flags, at(n), peer_isn + 1, full_window, len)) << "segment " << n;
    saw(s.header);
  }
  void expect_flight(uint32_t from, uint32_t to) {
    for (uint32_t n = from; n < to; ++n) expect_segment(n);
  }
  // The peer acknowledges up to segment n (exclusive), SACKing `blocks`
  // (pairs of segment numbers, [first, last)).
  void peer_ack(uint32_t n, std::initializer_list<std::pair<uint32_t, uint32_t>> blocks = {},
                uint16_t window = 511) {
    ++peer_ts;
    TcpRepr h = from_peer(flag::ack, peer_isn + 1, at(n), window);
    for (auto [first, last] : blocks) h.options.add_sack({at(first), at(last)});
    inject(h);
  }

  uint32_t seg = data_mss;
  uint32_t total = 0;
};

PeerOffer without_sack_or_timestamps() {
  PeerOffer p;
  p.sack = false;
  p.timestamps = false;
  return p;
}

TcpOptions newreno(TcpOptions o) {
  o.congestion = ::net::TcpCongestion::newreno;
  return o;
}

TEST_F(TcpLoss, ThreeDuplicateAcksRetransmitAndNewRenoRecovers) {
  TcpConnection c = sending(14, without_sack_or_timestamps(), newreno(options()));
  expect_flight(0, 10);  // IW10; segment 0 is lost
  peer_ack(0);
  expect_segment(10);  // RFC 3042: a new segment per duplicate ACK ...
  peer_ack(0);
  expect_segment(11);  // ... for the first two
  peer_ack(0);
  expect_segment(0);  // the third: fast retransmit
  EXPECT_EQ(sent_count(), 0u);
  // ssthresh = 12 segments in flight / 2 = 6; cwnd = 6 + 3 (RFC 5681 §3.2).
  EXPECT_EQ(c.stats().ssthresh, 6 * seg);
  EXPECT_EQ(c.stats().cwnd, 9 * seg);
  for (int dup = 4; dup <= 6; ++dup) peer_ack(0);  // cwnd inflates to 12 segments
  EXPECT_EQ(sent_count(), 0u);
  peer_ack(0);
  expect_segment(12);  // 13 > 12 in flight: new data
  peer_ack(0);
  expect_segment(13);
  peer_ack(0);
  EXPECT_EQ(sent_count(), 0u);
  peer_ack(12);                        // everything up to the recovery point: recovery ends
  EXPECT_EQ(c.stats().cwnd, 3 * seg);  // min(ssthresh, flight + 1 segment) (RFC 6582 §3.2)
  EXPECT_EQ(c.stats().fast_retransmits, 1u);
  EXPECT_EQ(c.stats().retransmits, 1u);
  EXPECT_EQ(sent_count(), 0u);
}

TEST_F(TcpLoss, NewRenoPartialAckRetransmitsTheNextHoleAtOnce) {
  TcpConnection c = sending(10, without_sack_or_timestamps(), newreno(options()));
  expect_flight(0, 10);  // segments 0 and 2 are lost
  for (int dup = 0; dup < 3; ++dup) peer_ack(0);
  expect_segment(0);
  for (int dup = 0; dup < 5; ++dup) peer_ack(0);  // segments 4..9 arrive
  EXPECT_EQ(sent_count(), 0u);
  peer_ack(2);  // the retransmission filled the first hole: a partial ACK
  expect_segment(2);
  EXPECT_EQ(sent_count(), 0u);
  peer_ack(10);
  EXPECT_EQ(c.stats().retransmits, 2u);
  EXPECT_EQ(c.stats().fast_retransmits, 1u);  // one recovery for both losses
  EXPECT_EQ(c.stats().timeouts, 0u);
}

TEST_F(TcpLoss, SackRecoveryResendsOnlyTheHoles) {
  TcpConnection c = sending(10);
  expect_flight(0, 10);  // segments 1 and 4 are lost
  peer_ack(1);
  peer_ack(1, {{2, 3}});
  peer_ack(1, {{2, 4}});
  EXPECT_EQ(sent_count(), 0u);  // two duplicate ACKs: not yet
  peer_ack(1, {{5, 6}, {2, 4}});
  // Recovery (RFC 6675 §5): segment 1 at once (IsLost: 3 segments SACKed
  // above it), then while cwnd - pipe allows, NextSeg's rule 3: segment 4.
  expect_segment(1);
  expect_segment(4);
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(c.stats().cwnd, uint32_t(11 * seg * 0.7));  // CUBIC: β = 0.7 (RFC 9438)
  for (uint32_t n = 7; n <= 10; ++n) peer_ack(1, {{5, n}, {2, 4}});
  EXPECT_EQ(sent_count(), 0u);  // the SACKs shrink the pipe; nothing else is missing
  peer_ack(4, {{5, 10}});       // the first retransmission arrived
  EXPECT_EQ(sent_count(), 0u);
  peer_ack(10);
  ::net::TcpStats s = c.stats();
  EXPECT_EQ(s.retransmits, 2u);
  EXPECT_EQ(s.sack_recoveries, 1u);
  EXPECT_EQ(s.cwnd, 2 * seg);  // min(ssthresh, flight + 1 segment)
}

TEST_F(TcpLoss, TwoDuplicateAcksOnlyReleaseNewData) {
  TcpConnection c = sending(12);
  expect_flight(0, 10);  // segment 0 is late, not lost
  peer_ack(0, {{1, 2}});
  expect_segment(10);
  peer_ack(0, {{1, 3}});
  expect_segment(11);
  peer_ack(12);
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(c.stats().retransmits, 0u);
  EXPECT_EQ(c.stats().dup_acks_received, 2u);
}

TEST_F(TcpLoss, WindowUpdatesAreNotDuplicateAcks) {
  TcpConnection c = sending(10, without_sack_or_timestamps());
  expect_flight(0, 10);
  for (uint16_t w = 400; w < 404; ++w) peer_ack(0, {}, w);  // RFC 5681 §2: the window changed
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(c.stats().dup_acks_received, 0u);
}

TEST_F(TcpLoss, RetransmissionTimerBacksOff) {
  TcpConnection c = sending(1);
  expect_segment(0);
  // The handshake measured ~0: RTO is the 200 ms floor, then 400, 800.
  for (auto rto : {200ms, 400ms, 800ms}) {
    advance(rto - 1ms);
    EXPECT_EQ(sent_count(), 0u);
    advance(1ms);
    expect_segment(0);
  }
  EXPECT_EQ(c.stats().rto_ms, 1600u);
  advance(10ms);
  peer_ack(1);  // echoes the last retransmission's timestamp: a valid sample
  EXPECT_EQ(c.stats().rto_ms, 200u);
  EXPECT_EQ(c.stats().timeouts, 3u);
  EXPECT_EQ(counters().tcp.timeouts, 3u);
  advance(10s);
  EXPECT_EQ(sent_count(), 0u);
}

TEST_F(TcpLoss, TimeoutRestartsFromOneSegmentAndResendsInSlowStart) {
  TcpConnection c = sending(10);
  expect_flight(0, 10);
  advance(200ms);
  expect_segment(0);  // cwnd = 1 segment (RFC 5681 §3.1)
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(c.stats().cwnd, seg);
  EXPECT_EQ(c.stats().ssthresh, uint32_t(10 * seg * 0.7));
  peer_ack(1);
  expect_segment(1);  // slow start: two more
  expect_segment(2);
  EXPECT_EQ(sent_count(), 0u);
  peer_ack(3);
  for (uint32_t n = 3; n < 7; ++n) expect_segment(n);
  EXPECT_EQ(sent_count(), 0u);
}

TEST_F(TcpLoss, KarnKeepsTheBackedOffTimerUntilAFreshSample) {
  TcpConnection c = accept(without_sack_or_timestamps());
  TcpRepr first = from_us(flag::ack | flag::psh, iss + 1, peer_isn + 1, full_window, 100);
  ASSERT_EQ(*c.write(pattern(100)), 100u);
  EXPECT_EQ(next_header(), first);
  advance(200ms);
  EXPECT_EQ(next_header(), first);
  advance(50ms);
  inject(from_peer(flag::ack, peer_isn + 1, iss + 101, 511));
  EXPECT_EQ(c.stats().rto_ms, 400u);  // the ACK may be of either copy: no sample
  ASSERT_EQ(*c.write(pattern(100)), 100u);
  EXPECT_EQ(next_header(),
            from_us(flag::ack | flag::psh, iss + 101, peer_isn + 1, full_window, 100));
  advance(10ms);
  inject(from_peer(flag::ack, peer_isn + 1, iss + 201, 511));
  EXPECT_EQ(c.stats().rto_ms, 200u);
  EXPECT_EQ(c.stats().srtt_us, 1250u);  // 1 µs from the handshake, then 7/8 of it + 10 ms / 8
}

TEST_F(TcpLoss, UserTimeoutResetsAndReportsTimedOut) {
  TcpOptions o = options();
  o.user_timeout = std::chrono::seconds(2);
  TcpConnection c = sending(1, {}, o);
  TcpCloseReason reason = TcpCloseReason::closed;
  c.on_close([&](TcpCloseReason r) { reason = r; });
  expect_segment(0);
  advance(200ms);
  expect_segment(0);
  advance(400ms);
  expect_segment(0);
  advance(800ms);
  expect_segment(0);
  advance(1599ms);
  EXPECT_EQ(sent_count(), 0u);
  advance(1ms);  // 2.8 s since the first expiry: give up
  EXPECT_EQ(next_header(), (TcpRepr{80, client_port, at(1), 0, flag::rst, 0, 0, {}, 0}));
  EXPECT_EQ(reason, TcpCloseReason::timed_out);
  EXPECT_FALSE(c.is_open());
  EXPECT_EQ(counters().tcp.connection_timeouts, 1u);
  EXPECT_EQ(stack.tcp().connections(), 0u);
}

}  // namespace
}  // namespace keel::test
