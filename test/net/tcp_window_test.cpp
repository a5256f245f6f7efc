// Flow control: the peer's zero window and our persist timer with its
// probes (RFC 9293 §3.8.6.1), and our own window closing while the
// service holds data, answering probes, and reopening.
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using TcpWindow = TcpTest;

TEST_F(TcpWindow, ZeroWindowIsProbedWithBackoffUntilItOpens) {
  TcpConnection c = accept();
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 0));  // the peer's window closes
  ASSERT_EQ(*c.write(pattern(100)), 100u);
  EXPECT_EQ(sent_count(), 0u);
  // The persist timer: after one RTO (200 ms), then doubling (400, 800).
  for (auto interval : {200ms, 400ms, 800ms}) {
    advance(interval - 1ms);
    EXPECT_EQ(sent_count(), 0u);
    advance(1ms);
    SentSegment probe = next();
    EXPECT_EQ(probe.header, from_us(flag::ack, iss + 1, peer_isn + 1, full_window, 1));
    EXPECT_EQ(probe.payload, Bytes{pattern(100)[0]});
    saw(probe.header);
    ++peer_ts;
    inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 0));  // still closed
  }
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 511));  // open
  SentSegment data = next();
  EXPECT_EQ(data.header, from_us(flag::ack | flag::psh, iss + 1, peer_isn + 1, full_window, 100));
  EXPECT_EQ(data.payload, pattern(100));
  EXPECT_EQ(c.stats().retransmits, 0u);  // probes are not retransmissions
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 101, 511));
  advance(5s);
  EXPECT_EQ(sent_count(), 0u);  // nothing left to probe or resend
}

TEST_F(TcpWindow, APeerThatTakesTheProbeMovesItOn) {
  TcpConnection c = accept();
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 0));
  ASSERT_EQ(*c.write(pattern(100)), 100u);
  advance(200ms);
  saw(next_header());
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 2, 511));  // took the byte, and opened
  SentSegment rest = next();
  EXPECT_EQ(rest.header, from_us(flag::ack | flag::psh, iss + 2, peer_isn + 1, full_window, 99));
  Bytes all = pattern(100);
  EXPECT_EQ(rest.payload, Bytes(all.begin() + 1, all.end()));
}

TEST_F(TcpWindow, OurWindowClosesWhileTheServiceHoldsDataAndProbesAreAnswered) {
  TcpOptions o = options();
  o.auto_consume = false;
  o.receive_buffer = 4096;
  TcpConnection c = accept({}, o);
  c.on_read([](std::span<const uint8_t>) {});
  for (uint32_t i = 0; i < 4; ++i) {
    inject(from_peer(flag::ack, peer_isn + 1 + 1024 * i, iss + 1, 511), pattern(1024, uint8_t(i)));
  }
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + 2048, 64));
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + 4096, 0));
  // The peer's probe: a byte past a zero window is not taken; the ACK
  // says the window is still closed.
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1 + 4096, iss + 1, 511), Bytes{0x55});
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + 4096, 0));
  EXPECT_EQ(c.unconsumed(), 4096u);
  ASSERT_EQ(c.consumed(4096), Status::ok);
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + 4096, 128));
}

TEST_F(TcpWindow, AServiceHoldingItsInputIsNeverOfferedMoreThanItsBufferHolds) {
  // The right edge we offered never moves back, and the window field is
  // rounded up to the scale's unit (32 bytes here). Rounded up again from
  // each new RCV.NXT, the kept edge crept on by up to a unit per segment,
  // past the receive ring of a service that holds its input: data inside
  // the offered window was then dropped (no memory) at every
  // retransmission, and the connection stalled for good.
  TcpOptions o = options();
  o.auto_consume = false;
  o.receive_buffer = 4096;
  TcpConnection c = accept({}, o);
  c.on_read([](std::span<const uint8_t>) {});  // holds everything
  const uint32_t unit = 1u << our_shift;
  uint32_t seq = peer_isn + 1, edge = seq + o.receive_buffer;
  for (int i = 0; i < 1000 && seq != edge; ++i) {
    // Small odd pieces, each up to the edge we offered: all of it must be taken.
    uint32_t n = std::min<uint32_t>(45, edge - seq);
    ++peer_ts;
    inject(from_peer(flag::ack, seq, iss + 1, 511), pattern(n, uint8_t(i)));
    seq += n;
    advance(500ms);  // the delayed ACK, if one is due
    while (sent_count() > 0) {
      TcpRepr ack = next_header();
      saw(ack);
      ASSERT_EQ(ack.ack, seq) << "data inside the offered window was not taken";
      edge = ack.ack + (uint32_t(ack.window) << our_shift);
    }
  }
  EXPECT_EQ(seq, edge);  // the window closed
  EXPECT_LE(c.unconsumed(), o.receive_buffer + unit);
  EXPECT_EQ(counters().tcp.drop_memory, 0u);
}

TEST_F(TcpWindow, AnAckFromAPeerThatFilledTheWindowCounts) {
  // The peer sent up to the right edge we offered, its last segment is
  // still on the way, and it acknowledges our data: SEG.SEQ is at the
  // edge. Judged as RFC 9293 writes the test (SEG.SEQ < RCV.NXT +
  // RCV.WND) the ACK was dropped, and with a closed window every ACK
  // of a peer that sent into it was, until our retransmission timer.
  TcpOptions o = options();
  o.auto_consume = false;
  o.receive_buffer = 4096;
  TcpConnection c = accept({}, o);
  c.on_read([](std::span<const uint8_t>) {});
  ASSERT_EQ(*c.write(pattern(100)), 100u);
  saw(next_header());
  // Whole units (32 bytes), so the window left is exact: 1216 bytes.
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 511), pattern(1440));
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1 + 1440, iss + 1, 511), pattern(1440, 1));
  TcpRepr ack = next_header();
  EXPECT_EQ(ack.ack, peer_isn + 1 + 2880);
  EXPECT_EQ(ack.window, 38);
  // [2880, 4096) is on its way; the peer's ACK of our 100 bytes:
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1 + 4096, iss + 101, 511));
  EXPECT_EQ(c.send_queued(), 0u);
  advance(1s);
  EXPECT_EQ(c.stats().retransmits, 0u);
}

TEST_F(TcpWindow, ATooSmallWindowIsUsedWhenTheOverrideTimerRunsOut) {
  PeerOffer p;
  p.window_scale.reset();
  TcpConnection c = accept(p);
  our_window_shift = 0;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 100));  // 100 bytes, of 65535 offered before
  ASSERT_EQ(*c.write(pattern(1000)), 1000u);
  EXPECT_EQ(sent_count(), 0u);  // sender SWS avoidance: not worth it...
  advance(200ms);               // ... until RFC 1122 §4.2.3.4 (d)'s override timeout
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1, 65535, 100));
}

TEST_F(TcpWindow, AConnectionThatCannotSendAnythingGivesUpAfterTheUserTimeout) {
  TcpOptions o = options();
  o.user_timeout = 2s;
  TcpConnection c = accept({}, o);
  TcpCloseReason reason = TcpCloseReason::closed;
  c.on_close([&](TcpCloseReason r) { reason = r; });
  iface.deconfigure();  // no route to the peer any more: nothing leaves
  ASSERT_EQ(*c.write(pattern(1000)), 1000u);
  advance(2s);
  EXPECT_TRUE(c.is_open());
  advance(2s);
  EXPECT_FALSE(c.is_open());
  EXPECT_EQ(reason, TcpCloseReason::timed_out);
  EXPECT_EQ(stack.tcp().connections(), 0u);
  EXPECT_GT(counters().tcp.drop_tx_failed, 0u);
}

}  // namespace
}  // namespace keel::test
