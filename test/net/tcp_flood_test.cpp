// Listeners under pressure: SYN cookies once the backlog of handshakes is
// full (RFC 4987 §3.6), what a cookie carries and how long, a SYN flood
// that leaves memory bounded and real clients served, a full connection
// table (TIME_WAIT recycled, or cookies), and a handshake given up.
#include "net/tcp/syn_cookies.hpp"
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

class TcpFlood : public TcpTest {
 protected:
  void SetUp() override {
    TcpTest::SetUp();
    our_port = server_port;
  }
  void listen(uint32_t backlog, std::size_t max_connections = 0) {
    ::net::Tcp::Limits limits;
    limits.backlog = backlog;
    limits.max_connections = max_connections;
    stack.tcp().set_limits(limits);
    listener = *stack.tcp().listen(
        server_port,
        [this](TcpConnection c) {
          accepted = c;
          c.on_read([this](std::span<const uint8_t> d) {
            received.insert(received.end(), d.begin(), d.end());
          });
        },
        options());
  }
  TcpRepr syn_from(uint16_t port, bool timestamps = true) {
    TcpRepr syn{port, 80, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
    syn.options.mss = 1460;
    syn.options.window_scale = 7;
    syn.options.sack_permitted = true;
    if (timestamps) syn.options.timestamps = ::net::wire::TcpTimestamps{peer_ts, 0};
    return syn;
  }
  // The peer's ACK completing a handshake answered with `synack`.
  void complete(uint16_t port, const TcpRepr& synack, const Bytes& data = {}) {
    TcpRepr ack{port, 80, peer_isn + 1, synack.seq + 1, flag::ack, 511, 0, {}, 0};
    if (synack.options.timestamps) {
      ack.options.timestamps =
          ::net::wire::TcpTimestamps{peer_ts + 1, synack.options.timestamps->value};
    }
    inject(ack, data);
  }
  Bytes received;
};

TEST_F(TcpFlood, AFullBacklogAnswersWithSynCookies) {
  listen(2);
  inject(syn_from(40001));
  inject(syn_from(40002));
  EXPECT_EQ(sent_count(), 2u);
  nic.transmitted.clear();
  EXPECT_EQ(listener.pending(), 2u);
  inject(syn_from(40003));
  TcpRepr cookie = next_header();
  TcpRepr expected{80, 40003, cookie.seq, peer_isn + 1, flag::syn | flag::ack, 65535, 0, {}, 0};
  expected.options.mss = 1460;
  expected.options.window_scale = our_shift;
  expected.options.sack_permitted = true;
  ASSERT_TRUE(cookie.options.timestamps);
  expected.options.timestamps =
      ::net::wire::TcpTimestamps{cookie.options.timestamps->value, peer_ts};
  EXPECT_EQ(cookie, expected);
  EXPECT_EQ(cookie.seq >> 24 & 7, 6u);                         // MSS 1460, from the table
  EXPECT_EQ(cookie.options.timestamps->value & 31, 7u | 16u);  // scale 7, SACK
  EXPECT_EQ(stack.tcp().connections(), 2u);                    // nothing kept for it
  EXPECT_EQ(counters().tcp.syn_cookies_sent, 1u);
  complete(40003, cookie, text("hi"));
  ASSERT_TRUE(accepted.is_open());
  EXPECT_EQ(accepted.remote().port, 40003);
  EXPECT_EQ(received, text("hi"));
  ::net::TcpStats s = accepted.stats();
  EXPECT_TRUE(s.timestamps && s.sack && s.window_scale);  // restored from the echoed TSval
  EXPECT_EQ(s.mss, data_mss);
  EXPECT_EQ(s.send_window, 511u << 7);
  EXPECT_EQ(counters().tcp.syn_cookies_accepted, 1u);
  advance(40ms);
  TcpRepr ack = next_header();
  EXPECT_EQ(ack.seq, cookie.seq + 1);
  EXPECT_EQ(ack.ack, peer_isn + 3);
  EXPECT_EQ(ack.window, full_window);
}

TEST_F(TcpFlood, ACookieWithoutTimestampsCarriesOnlyTheMss) {
  listen(1);
  inject(syn_from(40001));
  nic.transmitted.clear();
  inject(syn_from(40002, false));
  TcpRepr cookie = next_header();
  TcpRepr expected{80, 40002, cookie.seq, peer_isn + 1, flag::syn | flag::ack, 65535, 0, {}, 0};
  expected.options.mss = 1460;  // window scale and SACK could not come back
  EXPECT_EQ(cookie, expected);
  complete(40002, cookie);
  ASSERT_TRUE(accepted.is_open());
  ::net::TcpStats s = accepted.stats();
  EXPECT_FALSE(s.timestamps || s.sack || s.window_scale);
  EXPECT_EQ(s.mss, 1460u);
}

TEST_F(TcpFlood, AForgedOrStaleCookieIsReset) {
  listen(1);
  inject(syn_from(40001));
  inject(syn_from(40002));
  nic.transmitted.clear();
  inject(syn_from(40003));
  TcpRepr cookie = next_header();
  TcpRepr forged = cookie;
  forged.seq ^= 0x10;
  complete(40003, forged);
  EXPECT_EQ(next_header(), (TcpRepr{80, 40003, forged.seq + 1, 0, flag::rst, 0, 0, {}, 0}));
  EXPECT_EQ(counters().tcp.drop_bad_cookie, 1u);
  // A cookie lives two 64-second periods at most.
  advance(128s);
  // (Meanwhile the ARP entry expired: the peer asks for us again.)
  nic.inject(
      ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
  nic.transmitted.clear();  // (the ARP reply, the half-open connection's SYN-ACKs)
  complete(40003, cookie);
  EXPECT_EQ(next_header(), (TcpRepr{80, 40003, cookie.seq + 1, 0, flag::rst, 0, 0, {}, 0}));
  EXPECT_EQ(counters().tcp.drop_bad_cookie, 2u);
  EXPECT_FALSE(accepted.is_open());
}

TEST_F(TcpFlood, ASynFloodLeavesMemoryBoundedAndClientsServed) {
  listen(128);
  for (uint16_t port = 1024; port < 1024 + 3000; ++port) inject(syn_from(port));
  EXPECT_EQ(listener.pending(), 128u);
  EXPECT_EQ(stack.tcp().connections(), 128u);
  EXPECT_EQ(counters().tcp.syn_cookies_sent, 3000u - 128u);
  EXPECT_EQ(stack.tcp().memory_used(), 0u);
  nic.transmitted.clear();
  // A real client gets a cookie, comes back, and is served.
  inject(syn_from(7));
  TcpRepr cookie = next_header();
  complete(7, cookie, text("hello"));
  ASSERT_TRUE(accepted.is_open());
  EXPECT_EQ(received, text("hello"));
  // The half-open connections give up on their own (5 SYN-ACKs, 63 s).
  advance(64s);
  EXPECT_EQ(listener.pending(), 0u);
  EXPECT_EQ(stack.tcp().connections(), 1u);
  EXPECT_EQ(accepted.state(), TcpState::established);
}

TEST_F(TcpFlood, TimeWaitsTakeNoConnectionSlotAndAFullTableOfThemRecyclesTheOldest) {
  stack.tcp().set_limits({.max_connections = 1});
  TcpConnection c = accept();
  c.shutdown();
  next();
  ++peer_ts;
  inject(from_peer(flag::ack | flag::fin, peer_isn + 1, iss + 2, 511));
  next();
  EXPECT_EQ(stack.tcp().connections(), 1u);  // in TIME_WAIT (a record, decision 0047)
  // The connection table is free for a new connection...
  inject(syn_from(40009));
  TcpRepr synack = next_header();
  EXPECT_EQ(synack.flags, flag::syn | flag::ack);
  EXPECT_EQ(stack.tcp().connections(), 2u);
  EXPECT_EQ(counters().tcp.time_wait_recycled, 0u);
  // ...and when that one closes first too, the TIME_WAIT table (as large
  // as max_connections) gives up its oldest record.
  complete(40009, synack);
  ASSERT_TRUE(accepted.is_open());
  accepted.shutdown();
  next();
  inject(TcpRepr{
      40009, 80, peer_isn + 1, synack.seq + 2, uint8_t(flag::ack | flag::fin), 512, 0, {}, 0});
  EXPECT_EQ(counters().tcp.time_wait_recycled, 1u);
  EXPECT_EQ(stack.tcp().connections(), 1u);
}

TEST_F(TcpFlood, AFullTableOfLiveConnectionsFallsBackToCookies) {
  stack.tcp().set_limits({.max_connections = 1});
  accept();
  inject(syn_from(40009));
  TcpRepr cookie = next_header();
  EXPECT_EQ(cookie.flags, flag::syn | flag::ack);
  EXPECT_EQ(counters().tcp.drop_table_full, 1u);
  EXPECT_EQ(counters().tcp.syn_cookies_sent, 1u);
  complete(40009, cookie);  // still no room: dropped, the peer may retry
  EXPECT_EQ(counters().tcp.drop_table_full, 2u);
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(stack.tcp().connections(), 1u);
}

TEST_F(TcpFlood, AnUnansweredSynAckIsResentFiveTimesThenDropped) {
  listen(8);
  inject(syn_from(40001));
  TcpRepr first = next_header();
  ts_base = first.options.timestamps->value;
  uint32_t elapsed_ms = 0;
  for (uint32_t backoff = 1; backoff <= 16; backoff *= 2) {  // 1 s, doubling (RFC 6298 (5.5))
    advance(std::chrono::milliseconds(backoff * 1000 - 1));
    EXPECT_EQ(sent_count(), 0u);
    advance(1ms);
    elapsed_ms += backoff * 1000;
    TcpRepr again = first;
    again.options.timestamps->value = ts_base + elapsed_ms;
    EXPECT_EQ(next_header(), again);
  }
  advance(32s);
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(listener.pending(), 0u);
  EXPECT_EQ(stack.tcp().connections(), 0u);
}

}  // namespace
}  // namespace keel::test
