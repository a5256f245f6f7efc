// Resets and the segments RFC 5961 guards against on a connection: RSTs
// at, inside and outside the window, SYNs on a synchronized connection,
// ACKs for what was never sent or far older than the window, challenge
// ACKs and their rate, PAWS (RFC 7323 §5) and the rate of ACKs for
// out-of-window segments.
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

class TcpReset : public TcpTest {
 protected:
  TcpConnection open() {
    TcpConnection c = accept();
    c.on_read([this](std::span<const uint8_t> d) {
      received.insert(received.end(), d.begin(), d.end());
    });
    c.on_close([this](TcpCloseReason r) { reasons.push_back(r); });
    return c;
  }
  void peer(uint8_t flags, uint32_t seq, uint32_t ack, const Bytes& data = {}) {
    inject(from_peer(flags, seq, ack, 511), data);
  }
  TcpRepr challenge() { return from_us(flag::ack, iss + 1, peer_isn + 1, full_window); }

  Bytes received;
  std::vector<TcpCloseReason> reasons;
};

TEST_F(TcpReset, ResetAtTheExpectedNumberEndsTheConnection) {
  TcpConnection c = open();
  peer(flag::rst, peer_isn + 1, 0);
  EXPECT_EQ(reasons, std::vector<TcpCloseReason>{TcpCloseReason::reset});
  EXPECT_FALSE(c.is_open());
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(counters().tcp.rx_resets, 1u);
  EXPECT_EQ(stack.tcp().connections(), 0u);
}

TEST_F(TcpReset, ResetInsideTheWindowGetsAChallengeAck) {
  TcpConnection c = open();
  peer(flag::rst, peer_isn + 100, 0);  // a blind guess in the window
  EXPECT_EQ(next_header(), challenge());
  EXPECT_TRUE(c.is_open());
  EXPECT_EQ(counters().tcp.drop_bad_rst, 1u);
  EXPECT_EQ(counters().tcp.challenge_acks, 1u);
  // A real peer answers the challenge with the RST at RCV.NXT.
  peer(flag::rst, peer_isn + 1, 0);
  EXPECT_FALSE(c.is_open());
}

TEST_F(TcpReset, ResetOutsideTheWindowIsDropped) {
  TcpConnection c = open();
  peer(flag::rst, peer_isn + 1 + 70000, 0);
  peer(flag::rst, peer_isn, 0);
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_TRUE(c.is_open());
  EXPECT_EQ(counters().tcp.drop_out_of_window, 2u);
}

TEST_F(TcpReset, SynOnAnEstablishedConnectionGetsAChallengeAck) {
  TcpConnection c = open();
  TcpRepr syn{client_port, 80, peer_isn + 77, 0, flag::syn, 65535, 0, {}, 0};
  inject(syn);
  EXPECT_EQ(next_header(), challenge());
  EXPECT_TRUE(c.is_open());
  EXPECT_EQ(counters().tcp.drop_bad_syn, 1u);
  EXPECT_EQ(listener.pending(), 0u);
}

TEST_F(TcpReset, AckOfDataNeverSentIsAnsweredWithAnAck) {
  TcpConnection c = open();
  peer(flag::ack | flag::psh, peer_isn + 1, iss + 1000, text("data"));
  EXPECT_EQ(next_header(), challenge());
  EXPECT_TRUE(received.empty());  // dropped with its data
  EXPECT_EQ(counters().tcp.drop_bad_ack, 1u);
  EXPECT_TRUE(c.is_open());
}

TEST_F(TcpReset, AckFarOlderThanTheWindowGetsAChallengeAck) {
  TcpConnection c = open();
  // RFC 5961 §5.2: acceptable from SND.UNA - MAX.SND.WND on (the SYN's
  // 65535 is the largest window the peer offered).
  peer(flag::ack | flag::psh, peer_isn + 1, iss + 1 - 65535, text("ok"));
  EXPECT_EQ(received, text("ok"));
  peer(flag::ack | flag::psh, peer_isn + 3, iss + 1 - 65536, text("no"));
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 3, full_window));
  EXPECT_EQ(received, text("ok"));
  EXPECT_EQ(counters().tcp.challenge_acks, 1u);
}

TEST_F(TcpReset, ChallengeAcksAreRateLimited) {
  open();
  for (int i = 0; i < 1001; ++i) peer(flag::rst, peer_isn + 100, 0);
  EXPECT_EQ(sent_count(), 1000u);  // RFC 5961 §7: 1000 a second
  EXPECT_EQ(counters().tcp.drop_rate_limited, 1u);
  nic.transmitted.clear();
  advance(1s);
  peer(flag::rst, peer_isn + 100, 0);
  EXPECT_EQ(sent_count(), 1u);
}

TEST_F(TcpReset, PawsDropsASegmentWithAnOlderTimestamp) {
  open();
  --peer_ts;  // older than TS.Recent
  peer(flag::ack | flag::psh, peer_isn + 1, iss + 1, text("replay"));
  ++peer_ts;
  EXPECT_EQ(next_header(), challenge());
  EXPECT_TRUE(received.empty());
  EXPECT_EQ(counters().tcp.drop_paws, 1u);
  peer(flag::ack | flag::psh, peer_isn + 1, iss + 1, text("fresh"));
  EXPECT_EQ(received, text("fresh"));
}

TEST_F(TcpReset, ResetInSynReceivedLeavesTheListenerListening) {
  listener = *stack.tcp().listen(
      80, [](TcpConnection) {}, options());
  TcpRepr syn{client_port, 80, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
  inject(syn);
  TcpRepr synack = next_header();
  EXPECT_EQ(listener.pending(), 1u);
  inject(TcpRepr{client_port, 80, peer_isn + 1, 0, flag::rst, 0, 0, {}, 0});
  EXPECT_EQ(listener.pending(), 0u);
  EXPECT_EQ(stack.tcp().connections(), 0u);
  EXPECT_EQ(sent_count(), 0u);
  inject(syn);
  EXPECT_EQ(next_header().flags, flag::syn | flag::ack);
  EXPECT_EQ(listener.pending(), 1u);
  (void)synack;
}

TEST_F(TcpReset, AcksForOutOfWindowSegmentsWithoutDataAreRateLimited) {
  open();
  peer(flag::ack, peer_isn + 100000, iss + 1);
  EXPECT_EQ(next_header(), challenge());
  advance(100ms);
  peer(flag::ack, peer_isn + 100000, iss + 1);
  EXPECT_EQ(sent_count(), 0u);  // two confused peers must not ping-pong ACKs
  EXPECT_EQ(counters().tcp.drop_rate_limited, 1u);
  advance(400ms);
  peer(flag::ack, peer_isn + 100000, iss + 1);
  EXPECT_EQ(next_header(), challenge());
}

}  // namespace
}  // namespace keel::test
