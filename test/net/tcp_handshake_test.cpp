// Opening connections (RFC 9293 §3.5): passive and active opens, what each
// side offers and agrees to (MSS, RFC 7323 window scale and timestamps,
// RFC 2018 SACK-permitted), simultaneous open, and what a listener does
// with segments that are not a SYN.
#include "tcp_fixture.hpp"

namespace keel::test {
namespace {

using Handshake = TcpTest;

TEST_F(Handshake, PassiveOpenAgreesToEveryOptionOffered) {
  TcpConnection c = accept();
  TcpRepr expected{80, client_port, iss, peer_isn + 1, flag::syn | flag::ack, 65535, 0, {}, 0};
  expected.options.mss = 1460;
  expected.options.window_scale = our_shift;
  expected.options.sack_permitted = true;
  expected.options.timestamps = ::net::wire::TcpTimestamps{ts_base, 500};
  EXPECT_EQ(handshake, expected);
  ASSERT_TRUE(c.is_open());
  EXPECT_EQ(c.state(), TcpState::established);
  EXPECT_EQ(c.remote(), (::net::Endpoint{peer_ip, client_port}));
  EXPECT_EQ(c.local(), (::net::Endpoint{stack_ip, 80}));
  ::net::TcpStats s = c.stats();
  EXPECT_TRUE(s.timestamps && s.sack && s.window_scale);
  EXPECT_EQ(s.mss, data_mss);
  EXPECT_EQ(s.send_window, 511u << 7);  // the final ACK's 65535 >> 7
  EXPECT_EQ(s.cwnd, 10 * data_mss);     // RFC 6928
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(counters().tcp.passive_opens, 1u);
  EXPECT_EQ(counters().tcp.established, 1u);
}

TEST_F(Handshake, PassiveOpenOffersOnlyWhatThePeerDid) {
  Peer bare;
  bare.mss = 536;
  bare.window_scale.reset();
  bare.sack = false;
  bare.timestamps = false;
  bare.window = 8192;
  TcpConnection c = accept(bare);
  TcpRepr expected{80, client_port, iss, peer_isn + 1, flag::syn | flag::ack, 65535, 0, {}, 0};
  expected.options.mss = 1460;
  EXPECT_EQ(handshake, expected);
  ::net::TcpStats s = c.stats();
  EXPECT_FALSE(s.timestamps || s.sack || s.window_scale);
  EXPECT_EQ(s.mss, 536u);
  EXPECT_EQ(s.send_window, 8192u);
  // Without window scaling we advertise at most 65535.
  ASSERT_EQ(*c.write(text("x")), 1u);
  EXPECT_EQ(next_header(), from_us(flag::ack | flag::psh, iss + 1, peer_isn + 1, 65535, 1));
}

TEST_F(Handshake, ActiveOpenOffersEverythingAndCompletesWithAnAck) {
  TcpConnection c = connect();
  TcpRepr syn{our_port, 80, iss, 0, flag::syn, 65535, 0, {}, 0};
  syn.options.mss = 1460;
  syn.options.window_scale = our_shift;
  syn.options.sack_permitted = true;
  syn.options.timestamps = ::net::wire::TcpTimestamps{ts_base, 0};
  EXPECT_EQ(handshake, syn);
  EXPECT_GE(our_port, ::net::Udp::ephemeral_first);
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1, full_window));
  EXPECT_EQ(c.state(), TcpState::established);
  EXPECT_EQ(accepted, c);  // on_connect ran with the same connection
  EXPECT_EQ(counters().tcp.active_opens, 1u);
}

TEST_F(Handshake, DataWrittenBeforeTheHandshakeLeavesAfterIt) {
  auto c = *stack.tcp().connect(
      {peer_ip, 80}, [](TcpConnection) {}, options());
  ASSERT_EQ(*c.write(text("early")), 5u);
  TcpRepr syn = next_header();
  EXPECT_EQ(sent_count(), 0u);  // nothing but the SYN yet
  iss = syn.seq;
  our_port = syn.src_port;
  their_port = 80;
  ts_base = syn.options.timestamps->value;
  TcpRepr synack{80, our_port, peer_isn, iss + 1, flag::syn | flag::ack, 65535, 0, {}, 0};
  synack.options.timestamps = ::net::wire::TcpTimestamps{peer_ts, ts_base};
  synack.options.window_scale = 7;
  inject(synack);
  SentSegment data = next();
  EXPECT_EQ(data.header, from_us(flag::ack | flag::psh, iss + 1, peer_isn + 1, full_window, 5));
  EXPECT_EQ(data.payload, text("early"));
  EXPECT_EQ(sent_count(), 0u);  // the data carried the ACK
}

TEST_F(Handshake, SimultaneousOpen) {
  // RFC 9293 §3.5 figure 8: both send SYN; each answers the other's SYN
  // with SYN-ACK; the ACKs of the SYNs complete both.
  auto c = *stack.tcp().connect({peer_ip, 80}, [](TcpConnection) {}, options(), {stack_ip, 5000});
  TcpRepr syn = next_header();
  iss = syn.seq;
  our_port = 5000;
  their_port = 80;
  ts_base = syn.options.timestamps->value;
  saw(syn);
  TcpRepr their_syn{80, 5000, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
  their_syn.options.window_scale = 7;
  their_syn.options.sack_permitted = true;
  their_syn.options.timestamps = ::net::wire::TcpTimestamps{peer_ts, 0};
  inject(their_syn);
  EXPECT_EQ(c.state(), TcpState::syn_received);
  TcpRepr synack{5000, 80, iss, peer_isn + 1, flag::syn | flag::ack, 65535, 0, {}, 0};
  synack.options.mss = 1460;
  synack.options.window_scale = our_shift;
  synack.options.sack_permitted = true;
  synack.options.timestamps = ::net::wire::TcpTimestamps{ts_base, peer_ts};
  EXPECT_EQ(next_header(), synack);
  // The peer's SYN-ACK (its answer to our SYN) completes ours.
  ++peer_ts;
  TcpRepr their_synack{80, 5000, peer_isn, iss + 1, flag::syn | flag::ack, 65535, 0, {}, 0};
  their_synack.options.timestamps = ::net::wire::TcpTimestamps{peer_ts, ts_base};
  inject(their_synack);
  EXPECT_EQ(c.state(), TcpState::established);
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1, full_window));
}

TEST_F(Handshake, ListenerAnswersStrayAcksWithResetAndIgnoresResets) {
  listener = *stack.tcp().listen(80, [](TcpConnection) {});
  // An ACK that is no SYN cookie: RST <SEQ=SEG.ACK>.
  inject(TcpRepr{client_port, 80, 7, 12345, flag::ack, 100, 0, {}, 0});
  EXPECT_EQ(next_header(), (TcpRepr{80, client_port, 12345, 0, flag::rst, 0, 0, {}, 0}));
  inject(TcpRepr{client_port, 80, 7, 0, flag::rst, 100, 0, {}, 0});
  inject(TcpRepr{client_port, 80, 7, 0, flag::fin, 100, 0, {}, 0});
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(counters().tcp.drop_bad_cookie, 1u);
  EXPECT_EQ(counters().tcp.drop_listen_not_syn, 2u);
  EXPECT_EQ(stack.tcp().connections(), 0u);
}

TEST_F(Handshake, ClosedPortsAnswerWithReset) {
  // RFC 9293 §3.10.7.1: no ACK: <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>.
  inject(TcpRepr{client_port, 81, 7, 0, flag::syn, 100, 0, {}, 0});
  EXPECT_EQ(next_header(), (TcpRepr{81, client_port, 0, 8, flag::rst | flag::ack, 0, 0, {}, 0}));
  inject(TcpRepr{client_port, 81, 7, 99, flag::ack, 100, 0, {}, 0}, text("abc"));
  EXPECT_EQ(next_header(), (TcpRepr{81, client_port, 99, 0, flag::rst, 0, 0, {}, 0}));
  inject(TcpRepr{client_port, 81, 7, 99, flag::rst, 100, 0, {}, 0});
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(counters().tcp.drop_no_connection, 3u);
  EXPECT_EQ(counters().tcp.tx_resets, 2u);
}

TEST_F(Handshake, ConnectRefusedByReset) {
  TcpCloseReason reason = TcpCloseReason::closed;
  auto c = *stack.tcp().connect(
      {peer_ip, 80}, [](TcpConnection) {}, options());
  c.on_close([&](TcpCloseReason r) { reason = r; });
  TcpRepr syn = next_header();
  // RFC 5961 §3.2: a RST without an acceptable ACK is not taken.
  inject(TcpRepr{80, syn.src_port, 0, 0, flag::rst, 0, 0, {}, 0});
  EXPECT_TRUE(c.is_open());
  inject(TcpRepr{80, syn.src_port, 0, syn.seq + 1, flag::rst | flag::ack, 0, 0, {}, 0});
  advance(std::chrono::nanoseconds(0));
  EXPECT_FALSE(c.is_open());
  EXPECT_EQ(reason, TcpCloseReason::refused);
  EXPECT_EQ(c.write(text("x")).status, Status::closed);
  EXPECT_EQ(stack.tcp().connections(), 0u);
}

}  // namespace
}  // namespace keel::test

namespace keel::test {
namespace {

using namespace std::chrono_literals;

// RFC 6298 (5.7): the SYN had to be sent again, so data starts with an RTO
// of 3 s (it came after 1 s, issue 18).
TEST_F(Handshake, DataAfterALostSynIsRetransmittedAfterThreeSeconds) {
  auto c = *stack.tcp().connect(
      {peer_ip, 80}, [](TcpConnection) {}, options());
  TcpRepr syn = next_header();
  advance(1s);
  TcpRepr again = next_header();  // the first SYN was lost
  ASSERT_EQ(again.flags, flag::syn);
  iss = syn.seq;
  our_port = syn.src_port;
  their_port = 80;
  timestamps = false;
  TcpRepr synack{80, our_port, peer_isn, iss + 1, flag::syn | flag::ack, 65535, 0, {}, 0};
  synack.options.mss = 1460;
  inject(synack);
  EXPECT_EQ(next_header().flags, flag::ack);
  ASSERT_EQ(*c.write(text("data")), 4u);
  EXPECT_EQ(next().payload, text("data"));
  advance(3s - 1ms);
  EXPECT_EQ(sent_count(), 0u);
  advance(1ms);
  SentSegment resent = next();
  EXPECT_EQ(resent.header.seq, iss + 1);
  EXPECT_EQ(resent.payload, text("data"));
}

TEST_F(Handshake, WithoutALostSynDataRetransmitsAfterTheMeasuredRto) {
  TcpConnection c = connect();  // no loss: the SYN's RTT is a sample
  ASSERT_EQ(*c.write(text("data")), 4u);
  next();  // the ACK of the SYN-ACK
  EXPECT_EQ(next().payload, text("data"));
  advance(200ms);  // the floor (RFC 6298 (2.4), 200 ms as Linux)
  EXPECT_EQ(next().payload, text("data"));
}

}  // namespace
}  // namespace keel::test
