// Data in both directions: delayed ACKs (RFC 5681 §4.2: every second
// full segment, or 40 ms), out-of-order data with SACK blocks (RFC 2018),
// duplicates, the initial window (RFC 6928), Nagle (RFC 9293 §3.7.4),
// the peer's window, zero-copy writes and back-pressure to the service.
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

class TcpData : public TcpTest {
 protected:
  // Accepts and reads everything into `received`.
  TcpConnection open(PeerOffer p = {}, TcpOptions o = {}) {
    TcpConnection c = accept(p, o);
    c.on_read([this](std::span<const uint8_t> d) {
      if (d.empty()) ++ends;
      received.insert(received.end(), d.begin(), d.end());
    });
    return c;
  }
  // The peer's data segment number n (from 0) of `size` bytes.
  void peer_sends(uint32_t offset, const Bytes& data, uint8_t flags = flag::ack) {
    inject(from_peer(flags, peer_isn + 1 + offset, iss + 1 + acked, 511), data);
  }
  // The peer acknowledges our first `n` bytes.
  void peer_acks(uint32_t n, uint16_t window = 511) {
    acked = n;
    ++peer_ts;
    inject(from_peer(flag::ack, peer_isn + 1 + peer_sent, iss + 1 + n, window));
  }
  // The data segment we sent next: whole header, and its payload.
  void expect_data(uint32_t offset, uint32_t len, uint8_t flags = flag::ack) {
    SentSegment s = next();
    EXPECT_EQ(s.header,
              from_us(flags, iss + 1 + offset, peer_isn + 1 + peer_sent, full_window, len));
    EXPECT_EQ(s.payload.size(), len);
    saw(s.header);
  }

  Bytes received;
  int ends = 0;
  uint32_t acked = 0;      // of our data, by the peer
  uint32_t peer_sent = 0;  // the peer's data we acknowledge in expectations
};

TEST_F(TcpData, InOrderDataIsAckedEverySecondSegmentOrAfter40ms) {
  open();
  Bytes one = pattern(data_mss, 1), two = pattern(data_mss, 2), three = pattern(data_mss, 3);
  peer_sends(0, one);
  EXPECT_EQ(received, one);
  EXPECT_EQ(sent_count(), 0u);
  advance(39ms);
  EXPECT_EQ(sent_count(), 0u);
  advance(1ms);
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + data_mss, full_window));
  peer_sends(data_mss, two);
  EXPECT_EQ(sent_count(), 0u);
  peer_sends(2 * data_mss, three);
  // The second full segment: at once. The window counts the segment not
  // yet read (64088 bytes, rounded up to the scale: 2003 × 32).
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + 3 * data_mss, 2003));
  Bytes all = one;
  all.insert(all.end(), two.begin(), two.end());
  all.insert(all.end(), three.begin(), three.end());
  EXPECT_EQ(received, all);
  advance(1s);
  EXPECT_EQ(sent_count(), 0u);  // nothing more was owed
}

// A segment the host coalesced from ten (GUEST_TSO4/6, decision 0093) is
// longer than the MSS: taken whole and acknowledged at once, as the ten
// would have been, and later full-sized segments still count as full.
TEST_F(TcpData, CoalescedSegmentIsTakenWholeAndAckedAtOnce) {
  open();
  Bytes big = pattern(10 * data_mss, 1);
  // As virtio-net hands it over: flagged, partial and verified (decision 0093).
  nic.inject_coalesced(ip_frame(tcp_packet(from_peer(flag::ack, peer_isn + 1, iss + 1, 511), big)),
                       data_mss, uint16_t(14 + 20));
  EXPECT_EQ(received, big);
  ASSERT_EQ(sent_count(), 1u);
  EXPECT_EQ(next_header().ack, peer_isn + 1 + 10 * data_mss);
  peer_sends(10 * data_mss, pattern(data_mss, 2));
  EXPECT_EQ(sent_count(), 0u);
  peer_sends(11 * data_mss, pattern(data_mss, 3));
  ASSERT_EQ(sent_count(), 1u);
  EXPECT_EQ(next_header().ack, peer_isn + 1 + 12 * data_mss);
}

TEST_F(TcpData, OutOfOrderDataIsAckedAtOnceWithSackBlocks) {
  open();
  const uint32_t p = peer_isn + 1, m = data_mss;
  peer_sends(m, pattern(m, 2));
  TcpRepr dup = from_us(flag::ack, iss + 1, p, full_window);
  dup.options.add_sack({p + m, p + 2 * m});
  EXPECT_EQ(next_header(), dup);
  peer_sends(3 * m, pattern(m, 4));  // another hole below it
  TcpRepr two = from_us(flag::ack, iss + 1, p, full_window);
  two.options.add_sack({p + 3 * m, p + 4 * m});  // the latest first (RFC 2018 §4)
  two.options.add_sack({p + m, p + 2 * m});
  EXPECT_EQ(next_header(), two);
  peer_sends(2 * m, pattern(m, 3));  // joins the two blocks
  TcpRepr joined = from_us(flag::ack, iss + 1, p, full_window);
  joined.options.add_sack({p + m, p + 4 * m});
  EXPECT_EQ(next_header(), joined);
  EXPECT_TRUE(received.empty());
  peer_sends(0, pattern(m, 1));  // the first hole filled: everything in order
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, p + 4 * m, 1867));
  EXPECT_EQ(received.size(), 4 * m);
  EXPECT_EQ(Bytes(received.begin() + 3 * m, received.end()), pattern(m, 4));
  EXPECT_EQ(counters().tcp.rx_out_of_order, 3u);
}

TEST_F(TcpData, DuplicateDataIsAckedAgainAndDeliveredOnce) {
  open();
  peer_sends(0, pattern(100));
  advance(40ms);
  // The window's right edge stays where the SYN-ACK put it (65535 bytes
  // on): 100 bytes are no reason to move it (RFC 9293 §3.8.6.2.2).
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 101, 2045));
  peer_sends(0, pattern(100));  // the peer did not get our ACK
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 101, 2045));
  EXPECT_EQ(received, pattern(100));
  EXPECT_EQ(counters().tcp.drop_out_of_window, 1u);
  // Partly old, partly new: the new part is taken.
  Bytes overlap = pattern(150);
  peer_sends(50, Bytes(overlap.begin() + 50, overlap.end()));
  EXPECT_EQ(received, overlap);
}

TEST_F(TcpData, InitialWindowIsTenSegmentsThenSlowStart) {
  TcpConnection c = open();
  Bytes data = pattern(20000);
  ASSERT_EQ(*c.write(data), 20000u);
  for (uint32_t i = 0; i < 10; ++i) expect_data(i * data_mss, data_mss);  // RFC 6928
  EXPECT_EQ(sent_count(), 0u);
  advance(1ms);
  peer_acks(2 * data_mss);  // cwnd grows by two segments (RFC 3465 L=2)
  for (uint32_t i = 10; i < 13; ++i) expect_data(i * data_mss, data_mss);
  // The last 1176 bytes are less than a segment and data is in flight:
  // Nagle keeps them until everything is acknowledged.
  EXPECT_EQ(sent_count(), 0u);
  peer_acks(13 * data_mss);
  expect_data(13 * data_mss, 20000 - 13 * data_mss, flag::ack | flag::psh);
  EXPECT_EQ(c.stats().cwnd, 10 * data_mss + 2 * data_mss + 2 * data_mss);
}

TEST_F(TcpData, NagleCoalescesSmallWritesUntilNoDelay) {
  TcpConnection c = open();
  ASSERT_EQ(*c.write(text("a")), 1u);
  expect_data(0, 1, flag::ack | flag::psh);  // idle: out at once
  ASSERT_EQ(*c.write(text("b")), 1u);
  ASSERT_EQ(*c.write(text("c")), 1u);
  EXPECT_EQ(sent_count(), 0u);  // "a" is unacknowledged
  peer_acks(1);
  SentSegment bc = next();
  EXPECT_EQ(bc.header, from_us(flag::ack | flag::psh, iss + 2, peer_isn + 1, full_window, 2));
  EXPECT_EQ(bc.payload, text("bc"));
  ASSERT_EQ(c.set_no_delay(true), Status::ok);
  ASSERT_EQ(*c.write(text("d")), 1u);  // "bc" in flight, and it goes anyway
  expect_data(3, 1, flag::ack | flag::psh);
}

TEST_F(TcpData, ThePeersWindowLimitsWhatIsSent) {
  PeerOffer small;
  small.window_scale.reset();
  small.window = 3000;
  TcpConnection c = open(small);
  our_window_shift = 0;
  ASSERT_EQ(*c.write(pattern(5000)), 5000u);
  SentSegment a = next(), b = next();
  EXPECT_EQ(a.header, from_us(flag::ack, iss + 1, peer_isn + 1, 65535, data_mss));
  EXPECT_EQ(b.header, from_us(flag::ack, iss + 1 + data_mss, peer_isn + 1, 65535, data_mss));
  // 104 bytes of window are left: sender SWS avoidance waits for more.
  EXPECT_EQ(sent_count(), 0u);
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1 + 2 * data_mss, 3000));
  SentSegment c1 = next();
  EXPECT_EQ(c1.header, from_us(flag::ack, iss + 1 + 2 * data_mss, peer_isn + 1, 65535, data_mss));
  EXPECT_EQ(sent_count(), 0u);  // the small rest waits for that one (Nagle)
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1 + 3 * data_mss, 3000));
  EXPECT_EQ(next_header(), from_us(flag::ack | flag::psh, iss + 1 + 3 * data_mss, peer_isn + 1,
                                   65535, 5000 - 3 * data_mss));
}

TEST_F(TcpData, ZeroCopyWriteSendsTheBufferItself) {
  TcpConnection c = open();
  std::string page(3000, 'z');
  ASSERT_EQ(c.write(::net::TcpBuffer::from(page)), Status::ok);
  EXPECT_EQ(c.send_queued(), 3000u);
  SentSegment a = next(), b = next();
  EXPECT_EQ(a.payload, Bytes(data_mss, 'z'));
  EXPECT_EQ(b.header, from_us(flag::ack, iss + 1 + data_mss, peer_isn + 1, full_window, data_mss));
  EXPECT_EQ(sent_count(), 0u);  // the last 104 bytes: Nagle
  peer_acks(2 * data_mss);
  SentSegment tail = next();
  EXPECT_EQ(tail.header, from_us(flag::ack | flag::psh, iss + 1 + 2 * data_mss, peer_isn + 1,
                                 full_window, 3000 - 2 * data_mss));
  peer_acks(3000);
  EXPECT_EQ(c.send_queued(), 0u);
}

TEST_F(TcpData, WriteTakesWhatFitsAndOnWritableSaysWhenMoreDoes) {
  TcpOptions o = options();
  o.send_buffer = 4096;
  TcpConnection c = open({}, o);
  int writable = 0;
  c.on_writable([&] { ++writable; });
  auto taken = c.write(pattern(10000));
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(*taken, 4096u);
  EXPECT_EQ(c.write(pattern(10)).status, Status::would_block);
  EXPECT_EQ(c.send_space(), 0u);
  expect_data(0, data_mss);
  expect_data(data_mss, data_mss);
  EXPECT_EQ(sent_count(), 0u);  // the last 1200 bytes: Nagle
  EXPECT_EQ(writable, 0);
  peer_acks(2 * data_mss);
  EXPECT_EQ(writable, 1);
  EXPECT_EQ(c.send_space(), 2 * data_mss);
  expect_data(2 * data_mss, 4096 - 2 * data_mss, flag::ack | flag::psh);
}

TEST_F(TcpData, HeldDataClosesTheWindowUntilConsumed) {
  TcpOptions o = options();
  o.auto_consume = false;
  o.receive_buffer = 4096;
  TcpConnection c = open({}, o);
  const uint32_t m = data_mss;
  peer_sends(0, pattern(m, 1));
  peer_sends(m, pattern(m, 2));
  // 4096 - 2896 held: the ACK offers 1200 bytes (rounded up to 38 × 32).
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + 2 * m, 38));
  peer_sends(2 * m, pattern(1200, 3));
  advance(40ms);
  // The buffer is full; 16 bytes of the window offered before are left (it
  // was rounded up, and a right edge never moves back): one unit of 32.
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + 2 * m + 1200, 1));
  EXPECT_EQ(c.unconsumed(), 4096u);
  EXPECT_EQ(c.consumed(5000), Status::invalid);  // more than it holds
  EXPECT_EQ(c.consumed(1000), Status::ok);
  EXPECT_EQ(sent_count(), 0u);  // 1000 bytes: less than a segment (RFC 9293 §3.8.6.2.2)
  EXPECT_EQ(c.consumed(3096), Status::ok);
  // Everything released: the window opens fully, and the peer is told.
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1 + 4096, 128));
  EXPECT_EQ(c.unconsumed(), 0u);
  EXPECT_EQ(received.size(), 4096u);
}

}  // namespace
}  // namespace keel::test
