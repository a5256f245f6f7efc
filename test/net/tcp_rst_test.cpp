// Resets and the segments RFC 5961 guards against on a connection: RSTs
// at, inside and outside the window, SYNs on a synchronized connection,
// ACKs for what was never sent or far older than the window, challenge
// ACKs and their rate, PAWS (RFC 7323 §5) and the rate of ACKs for
// out-of-window segments.
#include <set>

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

namespace keel::test {
namespace {

// Defects found by running held-out packetdrill scripts (issue 18): each
// of these failed before the fix it names.

TEST_F(TcpReset, AnUnacceptableAckLeavesTsRecentAlone) {
  TcpConnection c = open();
  // A blind in-window segment with a high TSval that acknowledges data
  // never sent: answered, dropped, and its timestamp not taken (RFC 9293
  // §3.10.7.4 fifth check; RFC 7323 §4.3 updates TS.Recent only then).
  uint32_t real_ts = peer_ts;
  peer_ts = real_ts + 1'000'000;
  peer(flag::ack | flag::psh, peer_isn + 1, iss + 5000, text("blind"));
  EXPECT_EQ(next_header().flags, flag::ack);
  EXPECT_EQ(counters().tcp.drop_bad_ack, 1u);
  // The real peer's next segment, with its own clock, is not taken for
  // an old duplicate (PAWS).
  peer_ts = real_ts + 1;
  peer(flag::ack | flag::psh, peer_isn + 1, iss + 1, text("real"));
  EXPECT_EQ(received, text("real"));
  EXPECT_EQ(counters().tcp.drop_paws, 0u);
  EXPECT_TRUE(c.is_open());
}

class SynReceived : public TcpReset {
 protected:
  // The peer's SYN to a listener; our SYN-ACK; no final ACK yet.
  void half_open() {
    listener = *stack.tcp().listen(
        80, [this](TcpConnection c) { accepted = c; }, options());
    TcpRepr syn{client_port, 80, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
    syn.options.mss = 1460;
    syn.options.window_scale = 7;
    syn.options.sack_permitted = true;
    syn.options.timestamps = ::net::wire::TcpTimestamps{peer_ts, 0};
    inject(syn);
    TcpRepr synack = next_header();
    iss = synack.seq;
    ts_base = synack.options.timestamps->value - uint32_t(clock.now_ns() / 1'000'000);
    saw(synack);
    our_port = 80;
    their_port = client_port;
  }
  // <SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>, our window scaled (RFC 7323 §2.2).
  TcpRepr ack_in_syn_received() { return from_us(flag::ack, iss + 1, peer_isn + 1, full_window); }
};

TEST_F(SynReceived, AnInWindowResetGetsAChallengeAck) {
  half_open();
  inject(TcpRepr{client_port, 80, peer_isn + 100, 0, flag::rst, 0, 0, {}, 0});
  EXPECT_EQ(next_header(), ack_in_syn_received());  // RFC 5961 §3.2: a MUST
  EXPECT_EQ(counters().tcp.challenge_acks, 1u);
  EXPECT_EQ(listener.pending(), 1u);  // the handshake goes on
}

TEST_F(SynReceived, ASynAtAnotherNumberGetsAChallengeAck) {
  half_open();
  TcpRepr syn{client_port, 80, peer_isn + 5, 0, flag::syn, 65535, 0, {}, 0};
  inject(syn);
  TcpRepr ack = next_header();  // RFC 5961 §4.2 (no timestamps: the SYN had none)
  EXPECT_EQ(ack.flags, flag::ack);
  EXPECT_EQ(ack.seq, iss + 1);
  EXPECT_EQ(ack.ack, peer_isn + 1);
  EXPECT_EQ(listener.pending(), 1u);
}

TEST_F(SynReceived, AnOutOfWindowSegmentGetsAnAck) {
  half_open();
  inject(from_peer(flag::ack | flag::psh, peer_isn + 1 + 200000, iss + 1, 511), text("far"));
  EXPECT_EQ(next_header(), ack_in_syn_received());
  EXPECT_EQ(counters().tcp.drop_out_of_window, 1u);
}

TEST_F(TcpReset, ChallengeAcksAreRateLimitedPerConnection) {
  open();
  peer(flag::rst, peer_isn + 100, 0);
  EXPECT_EQ(next_header(), challenge());
  for (int i = 0; i < 10; ++i) peer(flag::rst, peer_isn + 100, 0);
  EXPECT_EQ(sent_count(), 0u);  // one per 500 ms per connection (as Linux)
  EXPECT_EQ(counters().tcp.drop_rate_limited, 10u);
  advance(500ms);
  peer(flag::rst, peer_isn + 100, 0);
  EXPECT_EQ(next_header(), challenge());
}

TEST_F(TcpReset, AcksOfDataNeverSentShareTheChallengeLimit) {
  TcpConnection c = open();
  // RFC 5961 §5.2: answered through the same limiter as the challenges.
  for (int i = 0; i < 5; ++i) peer(flag::ack, peer_isn + 1, iss + 1000);
  EXPECT_EQ(sent_count(), 1u);
  EXPECT_EQ(counters().tcp.drop_bad_ack, 5u);
  EXPECT_EQ(counters().tcp.drop_rate_limited, 4u);
  EXPECT_TRUE(c.is_open());
}

// Many connections each earning one challenge: the host-wide count per
// second is drawn anew each second from [n/2, 3n/2), so an off-path sender
// cannot learn it by filling it (CVE-2016-5696).
TEST_F(TcpReset, TheHostWideChallengeLimitIsRandomisedEachSecond) {
  constexpr uint32_t limit = 20;
  constexpr int connections = 2 * limit;
  auto l = stack.tcp().limits();
  l.challenge_acks_per_second = limit;
  stack.tcp().set_limits(l);
  listener = *stack.tcp().listen(
      80, [](TcpConnection) {}, options());
  std::vector<uint32_t> isn_of;  // our ISN per peer port
  for (int i = 0; i < connections; ++i) {
    uint16_t port = uint16_t(20000 + i);
    inject(TcpRepr{port, 80, peer_isn, 0, flag::syn, 65535, 0, {}, 0});
    TcpRepr synack = next_header();
    inject(TcpRepr{port, 80, peer_isn + 1, synack.seq + 1, flag::ack, 512, 0, {}, 0});
  }
  ASSERT_EQ(stack.tcp().connections(), std::size_t(connections));
  std::set<std::size_t> counts;
  for (int second = 0; second < 6; ++second) {
    nic.transmitted.clear();
    for (int i = 0; i < connections; ++i) {
      inject(TcpRepr{uint16_t(20000 + i), 80, peer_isn + 100, 0, flag::rst, 0, 0, {}, 0});
    }
    std::size_t sent = sent_count();
    EXPECT_GE(sent, limit / 2);
    EXPECT_LT(sent, limit * 3 / 2);
    counts.insert(sent);
    advance(1s);
  }
  EXPECT_GT(counts.size(), 1u);  // six equal draws of 20 values: 1 in 3.2 million
}

}  // namespace
}  // namespace keel::test
