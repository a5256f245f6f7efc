// Connection tracking (lib/firewall/stateful/): states, TCP windows, timeouts, ICMP errors,
// eviction. Linux agreement is checked packet by packet by test_appliance_differential.py;
// these pin down the cases one by one.
#include "keel/firewall/conntrack.hpp"

#include <gtest/gtest.h>

#include "packet_builder.hpp"
#include "stateful/packet_info.hpp"

namespace keel::firewall {
namespace {

using test::build;
using test::Spec;
constexpr uint64_t kSecond = 1'000'000'000;

class ConntrackTest : public ::testing::Test {
 protected:
  ConntrackConfig config() {
    ConntrackConfig c;
    c.max_flows = 8;
    c.hash_key[0] = 1;
    return c;
  }
  Conntrack ct{config()};
  uint64_t now = kSecond;

  Tracked track(const Spec& s, bool confirm = true) {
    std::vector<uint8_t> p = build(s);
    PacketInfo info;
    EXPECT_TRUE(read_packet(p.data(), p.size(), info));
    Tracked t = ct.track(info, p.data(), true, now);
    if (t.pending && confirm) EXPECT_TRUE(ct.confirm(t.flow));
    return t;
  }
  static Spec reply_of(Spec s) {
    std::swap(s.src, s.dst);
    std::swap(s.sport, s.dport);
    return s;
  }
};

TEST_F(ConntrackTest, UdpFlowIsNewUntilAnsweredThenEstablishedBothWays) {
  Spec out;
  EXPECT_EQ(track(out).state, CtState::new_);
  EXPECT_EQ(track(out).state, CtState::new_);  // no reply yet
  Tracked back = track(reply_of(out));
  EXPECT_EQ(back.state, CtState::established);
  EXPECT_EQ(back.dir, Dir::reply);
  EXPECT_EQ(track(out).state, CtState::established);
  EXPECT_EQ(ct.size(), 1u);
}

TEST_F(ConntrackTest, AFlowWhosePacketWasDroppedLeavesNothing) {
  Spec out;
  Tracked t = track(out, false);
  ASSERT_TRUE(t.pending);
  ct.abandon(t.flow);
  EXPECT_EQ(ct.size(), 0u);
  EXPECT_EQ(track(reply_of(out)).state, CtState::new_);  // the reply starts a flow of its own
}

TEST_F(ConntrackTest, UdpFlowExpiresAfterItsTimeout) {
  Spec out;
  track(out);
  now += 31 * kSecond;
  EXPECT_EQ(track(reply_of(out)).state, CtState::new_);
  EXPECT_GE(ct.counters().expired, 1u);
}

TEST_F(ConntrackTest, TcpHandshakeDataAndCloseFollowLinuxStates) {
  Spec syn;
  syn.proto = 6;
  syn.tcp_options = {3, 3, 7, 4, 2, 1, 1};  // window scale 7, SACK permitted, padding
  Tracked t = track(syn);
  EXPECT_EQ(t.state, CtState::new_);
  EXPECT_EQ(ct.flow(t.flow).tcp_state, TcpState::syn_sent);
  Spec synack = reply_of(syn);
  synack.tcp_flags = 0x12, synack.seq = 5000, synack.ack = 1001;
  EXPECT_EQ(track(synack).state, CtState::established);
  EXPECT_EQ(ct.flow(t.flow).tcp_state, TcpState::syn_recv);
  Spec ack = syn;
  ack.tcp_flags = 0x10, ack.seq = 1001, ack.ack = 5001, ack.tcp_options.clear();
  ack.payload.assign(100, 'x');
  EXPECT_EQ(track(ack).state, CtState::established);
  EXPECT_EQ(ct.flow(t.flow).tcp_state, TcpState::established);
  EXPECT_TRUE(ct.flow(t.flow).has(flow_status::assured));
  Spec fin = ack;
  fin.tcp_flags = 0x11, fin.seq = 1101, fin.payload.clear();
  track(fin);
  EXPECT_EQ(ct.flow(t.flow).tcp_state, TcpState::fin_wait);
}

TEST_F(ConntrackTest, TcpSegmentsOutsideTheWindowAreInvalidOrIgnored) {
  Spec syn;
  syn.proto = 6;
  syn.window = 1000;
  track(syn);
  Spec synack = reply_of(syn);
  synack.tcp_flags = 0x12, synack.seq = 5000, synack.ack = 1001, synack.window = 1000;
  track(synack);
  Spec ack = syn;
  ack.tcp_flags = 0x10, ack.seq = 1001, ack.ack = 5001;
  track(ack);
  Spec beyond = ack;
  beyond.seq = 1001 + 100000;  // past what the receiver allowed
  EXPECT_EQ(track(beyond).state, CtState::invalid);
  Spec unsent_ack = ack;
  unsent_ack.ack = 5001 + 100000;  // acknowledges data never sent
  EXPECT_EQ(track(unsent_ack).state, CtState::invalid);
  Spec old = ack;
  old.seq = 1001 - 200000;  // long acknowledged: part of the flow, but out of step
  old.payload.assign(10, 'x');
  EXPECT_EQ(track(old).state, CtState::established);
  EXPECT_EQ(ct.counters().tcp_ignored, 1u);
}

TEST_F(ConntrackTest, TcpFlagsThatNoStackSendsAreInvalid) {
  Spec bad;
  bad.proto = 6;
  for (uint8_t flags : {0x00, 0x01, 0x03, 0x07, 0x29}) {
    bad.tcp_flags = flags;
    EXPECT_EQ(track(bad).state, CtState::invalid) << int(flags);
  }
  bad.tcp_flags = 0x12;  // a SYN/ACK cannot start a flow
  EXPECT_EQ(track(bad).state, CtState::invalid);
  bad.tcp_flags = 0x10;  // an ACK picks one up mid-stream
  EXPECT_EQ(track(bad).state, CtState::new_);
}

TEST_F(ConntrackTest, IcmpEchoAndTheErrorsAboutAFlow) {
  Spec echo;
  echo.proto = 1;
  EXPECT_EQ(track(echo).state, CtState::new_);
  Spec answer = reply_of(echo);
  answer.icmp_type = 0;
  EXPECT_EQ(track(answer).state, CtState::established);
  Spec unsolicited = answer;
  unsolicited.icmp_id = 99;
  EXPECT_EQ(track(unsolicited).state, CtState::invalid);

  Spec udp;
  udp.sport = 2000;
  track(udp);
  Spec error;
  error.proto = 1, error.icmp_type = 3, error.icmp_code = 3;
  error.src = 0x0A0100FE, error.dst = udp.src;  // from a router on the way
  std::vector<uint8_t> quoted = build(udp);
  error.payload.assign(quoted.begin(), quoted.begin() + 28);
  Tracked t = track(error);
  EXPECT_EQ(t.state, CtState::related);
  EXPECT_EQ(t.dir, Dir::reply);
  error.dst = 0x0A000099;  // not to the quoted packet's sender
  EXPECT_EQ(track(error).state, CtState::invalid);
}

TEST_F(ConntrackTest, BadTransportChecksumsAreInvalid) {
  std::vector<uint8_t> p = build(Spec{});
  p[26] ^= 0xff;  // the UDP checksum
  PacketInfo info;
  read_packet(p.data(), p.size(), info);
  EXPECT_EQ(ct.track(info, p.data(), true, now).state, CtState::invalid);
  EXPECT_EQ(ct.counters().invalid_checksum, 1u);
  EXPECT_EQ(ct.track(info, p.data(), false, now).state, CtState::new_);  // the NIC vouched for it
}

TEST_F(ConntrackTest, AFullTableEvictsUnansweredFlowsButKeepsAssuredOnes) {
  Spec s;
  for (int i = 0; i < 8; ++i) {
    s.sport = uint16_t(3000 + i);
    track(s);
    track(reply_of(s));  // answered: UDP flows with replies are assured
  }
  s.sport = 4000;
  Tracked refused = track(s, false);
  EXPECT_TRUE(refused.table_full);
  EXPECT_EQ(ct.counters().drop_table_full, 1u);
  // An unanswered flow makes room.
  ConntrackConfig c = config();
  Conntrack small(c);
  for (int i = 0; i < 20; ++i) {
    s.sport = uint16_t(5000 + i);
    std::vector<uint8_t> p = build(s);
    PacketInfo info;
    read_packet(p.data(), p.size(), info);
    Tracked t = small.track(info, p.data(), true, now);
    ASSERT_FALSE(t.table_full) << i;
    small.confirm(t.flow);
  }
  EXPECT_EQ(small.size(), 8u);
  EXPECT_EQ(small.counters().evicted, 12u);
}

// A connection per request leaves closed flows behind (TIME_WAIT's 120 s): a full table gives
// up a closing TCP flow for a new one, as Linux's early drop does (tcp_can_early_drop), though
// the closing flows are assured. (A soak through the appliance found drop_table_full at
// ~250 connections a second.)
TEST_F(ConntrackTest, AFullTableGivesUpClosingTcpFlowsForNewOnes) {
  // A connection from `sport` through its handshake and 10 bytes: assured, open.
  auto open_connection = [&](uint16_t sport) {
    Spec syn;
    syn.proto = 6, syn.sport = sport;
    Tracked t = track(syn);
    if (t.table_full) return std::pair(t, syn);
    Spec synack = reply_of(syn);
    synack.tcp_flags = 0x12, synack.seq = 5000, synack.ack = 1001;
    track(synack);
    Spec ack = syn;
    ack.tcp_flags = 0x10, ack.seq = 1001, ack.ack = 5001;
    ack.payload.assign(10, 'x');
    track(ack);
    return std::pair(t, ack);
  };
  auto connect_and_close = [&](uint16_t sport) {
    auto [t, last] = open_connection(sport);
    if (t.table_full) return t;
    Spec fin = last;
    fin.tcp_flags = 0x11, fin.seq = 1011, fin.payload.clear();
    track(fin);
    return t;
  };
  for (uint16_t i = 0; i < 8; ++i) {
    Tracked t = connect_and_close(uint16_t(6000 + i));
    ASSERT_FALSE(t.table_full) << i;
    EXPECT_EQ(ct.flow(t.flow).tcp_state, TcpState::fin_wait);
    EXPECT_TRUE(ct.flow(t.flow).has(flow_status::assured));
  }
  for (uint16_t i = 0; i < 8; ++i)
    EXPECT_FALSE(connect_and_close(uint16_t(7000 + i)).table_full) << i;
  EXPECT_EQ(ct.counters().drop_table_full, 0u);
  EXPECT_EQ(ct.counters().evicted, 8u);
  // Open connections are kept: with the table full of them, a new one is refused.
  for (uint16_t i = 0; i < 8; ++i) {
    ASSERT_FALSE(open_connection(uint16_t(8000 + i)).first.table_full);  // evicts a closing one
  }
  Spec open;
  open.proto = 6, open.sport = 9000;
  EXPECT_TRUE(track(open, false).table_full);
}

TEST_F(ConntrackTest, FlowsWhosePacketsNeverReturnAreReclaimed) {
  ConntrackConfig c = config();
  c.max_flows = 64;
  Conntrack big(c);
  Spec s;
  for (int i = 0; i < 200; ++i) {
    s.sport = uint16_t(6000 + i);
    std::vector<uint8_t> p = build(s);
    PacketInfo info;
    read_packet(p.data(), p.size(), info);
    // Created, then neither confirmed nor abandoned: a packet the stack lost on its way.
    ASSERT_FALSE(big.track(info, p.data(), true, now).table_full) << i;
  }
  EXPECT_EQ(big.size(), 32u);  // the pending ring's length
  EXPECT_EQ(big.counters().pending_lost, 200u - 32u);
}

// A flow whose reply tuple equals its original: Linux tracks it (both tuples in its table, the
// reply's found first), so its first packet is new and every later one established.
TEST_F(ConntrackTest, AFlowWhoseReplyTupleIsItsOriginalIsTracked) {
  Spec self;
  self.dst = self.src;  // 10.0.0.1:1000 -> 10.0.0.1:1000
  self.dport = self.sport;
  Tracked first = track(self);  // confirms it (the old code refused it as a clash)
  EXPECT_EQ(first.state, CtState::new_);
  EXPECT_EQ(ct.counters().drop_confirm_clash, 0u);
  Tracked second = track(self);
  EXPECT_EQ(second.state, CtState::established);
  EXPECT_EQ(second.dir, Dir::reply);
  EXPECT_EQ(second.flow, first.flow);
  EXPECT_EQ(ct.size(), 1u);
  now += 121 * kSecond;  // answered: UDP's stream timeout
  ct.expire(now, 8);
  EXPECT_EQ(ct.size(), 0u);
  EXPECT_EQ(ct.find(ct.flow(first.flow).tuple[0]), kNoFlow);
  EXPECT_EQ(track(self).state, CtState::new_);  // a flow anew
}

TEST_F(ConntrackTest, APortlessFlowBetweenAHostAndItselfIsTracked) {
  Spec gre;
  gre.proto = 47;
  gre.dst = gre.src;
  gre.payload = {0, 0, 0x08, 0};  // GRE version 0 carrying IPv4 (RFC 2784)
  EXPECT_EQ(track(gre).state, CtState::new_);
  EXPECT_EQ(track(gre).state, CtState::established);
  EXPECT_EQ(ct.size(), 1u);
}

// A clash on either tuple refuses the flow before anything goes into the index: the tuple that
// was free stays free.
TEST_F(ConntrackTest, AConfirmClashLeavesNoTupleBehind) {
  Spec a;
  Tracked first = track(a);
  Spec b;
  b.sport = 2000;
  Tracked second = track(b, false);
  ASSERT_TRUE(second.pending);
  // As NAT may: b's reply tuple made equal to one of a's.
  ct.flow(second.flow).tuple[1] = ct.flow(first.flow).tuple[1];
  const FlowKey b_original = ct.flow(second.flow).tuple[0];
  EXPECT_FALSE(ct.confirm(second.flow));
  EXPECT_EQ(ct.counters().drop_confirm_clash, 1u);
  EXPECT_EQ(ct.find(b_original), kNoFlow);
  EXPECT_EQ(ct.size(), 1u);
  Dir dir;
  EXPECT_EQ(ct.find(ct.flow(first.flow).tuple[1], &dir), first.flow);  // a's stays whole
  EXPECT_EQ(dir, Dir::reply);
  EXPECT_EQ(track(b).state, CtState::new_);  // b's tuple is free for a flow of its own
  EXPECT_EQ(ct.size(), 2u);
}

// A pending flow reclaimed before its packet reached its last hook: confirming it late puts
// nothing (no empty tuple) into the index; the packet, which passed its rules, goes on.
TEST_F(ConntrackTest, ConfirmingAReclaimedFlowInsertsNothing) {
  ConntrackConfig c = config();
  c.max_flows = 64;
  Conntrack big(c);
  Spec s;
  uint32_t first = kNoFlow;
  for (int i = 0; i < 33; ++i) {  // one more than the pending ring holds
    s.sport = uint16_t(6000 + i);
    std::vector<uint8_t> p = build(s);
    PacketInfo info;
    read_packet(p.data(), p.size(), info);
    Tracked t = big.track(info, p.data(), true, now);
    if (i == 0) first = t.flow;
  }
  ASSERT_EQ(big.counters().pending_lost, 1u);
  EXPECT_TRUE(big.confirm(first));
  EXPECT_EQ(big.find(FlowKey{}), kNoFlow);
  EXPECT_EQ(big.size(), 32u);
}

}  // namespace
}  // namespace keel::firewall
