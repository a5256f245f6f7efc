// Keepalive (RFC 9293 §3.8.4, RFC 1122 §4.2.3.6): off unless asked; then
// a probe (SEG.SEQ = SND.NXT - 1, no data) after the idle time, again every
// interval while unanswered, and a reset once the probes are used up.
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

class TcpKeepalive : public TcpTest {
 protected:
  TcpConnection open() {
    TcpOptions o = options();
    o.keepalive = true;
    o.keepalive_idle = 10s;
    o.keepalive_interval = 2s;
    o.keepalive_probes = 3;
    TcpConnection c = accept({}, o);
    c.on_close([this](TcpCloseReason r) { reasons.push_back(r); });
    return c;
  }
  TcpRepr probe() { return from_us(flag::ack, iss, peer_isn + 1, full_window); }
  std::vector<TcpCloseReason> reasons;
};

TEST_F(TcpKeepalive, UnansweredProbesEndTheConnection) {
  TcpConnection c = open();
  advance(10s - 1ms);
  EXPECT_EQ(sent_count(), 0u);
  advance(1ms);
  EXPECT_EQ(next_header(), probe());
  for (int i = 0; i < 2; ++i) {
    advance(2s);
    EXPECT_EQ(next_header(), probe());
  }
  advance(2s);
  EXPECT_EQ(next_header(), (TcpRepr{80, client_port, iss + 1, 0, flag::rst, 0, 0, {}, 0}));
  EXPECT_EQ(reasons, std::vector<TcpCloseReason>{TcpCloseReason::timed_out});
  EXPECT_FALSE(c.is_open());
}

TEST_F(TcpKeepalive, AnAnsweredProbeStartsTheIdleTimeAgain) {
  TcpConnection c = open();
  advance(10s);
  EXPECT_EQ(next_header(), probe());
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 511));  // the peer is there
  advance(10s - 1ms);
  EXPECT_EQ(sent_count(), 0u);
  advance(1ms);
  EXPECT_EQ(next_header(), probe());
  EXPECT_TRUE(c.is_open());
}

TEST_F(TcpKeepalive, TrafficPostponesTheProbe) {
  TcpConnection c = open();
  advance(6s);
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 511));
  advance(10s - 1ms);  // not yet 10 s since the peer was last heard from
  EXPECT_EQ(sent_count(), 0u);
  advance(1ms);
  EXPECT_EQ(next_header(), probe());
}

TEST_F(TcpKeepalive, IsOffUnlessAskedFor) {
  TcpConnection c = accept();
  advance(std::chrono::hours(3));
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(c.set_keepalive(true), Status::ok);  // default idle: 2 hours
  advance(std::chrono::hours(2) - 1s);
  // (The peer's ARP entry is long gone: it asks for us again.)
  nic.inject(
      ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
  nic.transmitted.clear();
  advance(1s);
  EXPECT_EQ(next_header(), from_us(flag::ack, iss, peer_isn + 1, full_window));
}

}  // namespace
}  // namespace keel::test
