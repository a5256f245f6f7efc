// TCP's parts on their own: sequence arithmetic, the RTT estimator (RFC
// 6298), CUBIC's window curve (RFC 9438), the SACK scoreboard's IsLost and
// pipe (RFC 6675), the receive ring with its out-of-order ranges and SACK
// blocks, the send queue of chunks, the deadline heap, SYN cookies.
#include <gtest/gtest.h>

#include <random>

#include "net/tcp/congestion.hpp"
#include "net/tcp/deadlines.hpp"
#include "net/tcp/receive_buffer.hpp"
#include "net/tcp/rtt.hpp"
#include "net/tcp/scoreboard.hpp"
#include "net/tcp/send_buffer.hpp"
#include "net/tcp/seq.hpp"
#include "net/tcp/syn_cookies.hpp"

namespace net::tcp {
namespace {

TEST(TcpSeq, ComparesAcrossTheWrap) {
  EXPECT_TRUE(seq_lt(0xfffffff0u, 0x10u));
  EXPECT_TRUE(seq_gt(0x10u, 0xfffffff0u));
  EXPECT_TRUE(seq_in(0u, 0xfffffff0u, 0x10u));
  EXPECT_FALSE(seq_in(0x10u, 0xfffffff0u, 0x10u));
  EXPECT_EQ(seq_max(0xfffffff0u, 0x10u), 0x10u);
}

TEST(TcpRtt, FollowsRfc6298) {
  RttEstimator r;
  EXPECT_EQ(r.rto_us(), 1'000'000u);  // (2.1)
  r.sample(100'000);
  EXPECT_EQ(r.srtt_us(), 100'000u);  // (2.2)
  EXPECT_EQ(r.rttvar_us(), 50'000u);
  EXPECT_EQ(r.rto_us(), 300'000u);  // 100 + 4 × 50 ms
  r.sample(200'000);                // (2.3)
  EXPECT_EQ(r.rttvar_us(), (3 * 50'000u + 100'000u) / 4);
  EXPECT_EQ(r.srtt_us(), (7 * 100'000u + 200'000u) / 8);
  r.back_off();
  r.back_off();
  EXPECT_EQ(r.rto_us(), 4 * (112'500u + 4 * 62'500u));  // (5.5)
  for (int i = 0; i < 20; ++i) r.back_off();
  EXPECT_EQ(r.rto_us(), RttEstimator::max_rto_us);
  r.sample(1);
  EXPECT_EQ(r.backoff(), 0u);
  EXPECT_GE(r.rto_us(), RttEstimator::min_rto_us);
}

TEST(TcpCubic, ReducesToSevenTenthsAndGrowsBackAlongTheCubic) {
  constexpr uint32_t mss = 1000;
  Congestion c;
  c.start(TcpCongestion::cubic, mss);
  c.set_cwnd(100 * mss);
  EXPECT_EQ(c.on_loss(100 * mss, 0), 70u * mss);  // β = 0.7
  c.set_cwnd(c.ssthresh());
  // K = cbrt(W_max (1 - β) / C) = cbrt(100 × 0.3 / 0.4) ≈ 4.22 s to regain 100.
  uint64_t now = 1'000'000, rtt = 100'000;
  uint32_t at_k = 0;
  for (; now < 20'000'000; now += rtt) {
    c.on_ack(c.cwnd(), c.cwnd(), now, rtt);  // a window acknowledged per RTT
    if (at_k == 0 && now >= 1'000'000 + 4'220'000) at_k = c.cwnd();
  }
  EXPECT_NEAR(double(at_k) / mss, 100.0, 5.0);  // the plateau at W_max
  EXPECT_GT(c.cwnd(), 150u * mss);              // then probing beyond it
  // Fast convergence (§4.7): a loss below the last W_max remembers less.
  Congestion d;
  d.start(TcpCongestion::cubic, mss);
  d.set_cwnd(100 * mss);
  d.on_loss(100 * mss, 0);
  d.set_cwnd(80 * mss);
  EXPECT_EQ(d.on_loss(80 * mss, 0), 56u * mss);
}

TEST(TcpNewReno, HalvesAndGrowsOneSegmentPerWindow) {
  Congestion c;
  c.start(TcpCongestion::newreno, 1000);
  EXPECT_EQ(c.cwnd(), 10'000u);  // RFC 6928
  c.set_cwnd(20'000);
  EXPECT_EQ(c.on_loss(20'000, 0), 10'000u);
  c.set_cwnd(10'000);
  for (int i = 0; i < 10; ++i) c.on_ack(1000, 10'000, 0, 0);
  EXPECT_EQ(c.cwnd(), 11'000u);
  c.on_ack(1000, 1000, 0, 0);  // the sender is not using its window: no growth
  EXPECT_EQ(c.cwnd(), 11'000u);
  c.on_timeout(11'000, 0);
  EXPECT_EQ(c.cwnd(), 1000u);
  EXPECT_EQ(c.ssthresh(), 5500u);
}

// RFC 3465's L = 2 segments per ACK counts segments as sent: an ACK for a
// whole TSO segment of 10 MSS grows slow start by those 10 MSS, not by 2
// (decision 0092).
TEST(TcpSlowStart, AbcLimitCountsTsoSegmentsAsSent) {
  Congestion c;
  c.start(TcpCongestion::cubic, 1000);
  c.on_ack(10'000, 10'000, 0, 0);
  EXPECT_EQ(c.cwnd(), 12'000u);  // MSS-sized segments: at most 2 MSS an ACK
  c.sent_segment(10'000);
  c.on_ack(10'000, 12'000, 0, 0);
  EXPECT_EQ(c.cwnd(), 22'000u);
}

wire::TcpOptions sacks(std::initializer_list<std::pair<uint32_t, uint32_t>> blocks) {
  wire::TcpOptions o;
  for (auto [l, r] : blocks) o.add_sack({l, r});
  return o;
}

TEST(TcpScoreboard, IsLostAndPipeFollowRfc6675) {
  constexpr uint32_t mss = 100, una = 1000, max = 2000;
  Scoreboard s;
  EXPECT_EQ(s.update(sacks({{1100, 1200}}), una, max), 100u);
  EXPECT_EQ(s.lost_boundary(una, mss), una);  // one block of 100 bytes above: not lost
  EXPECT_EQ(s.update(sacks({{1100, 1200}}), una, max), 0u);  // nothing new
  s.update(sacks({{1300, 1400}, {1500, 1600}}), una, max);
  // Three blocks above 1000..1100: lost (DupThresh ranges).
  EXPECT_EQ(s.lost_boundary(una, mss), 1100u);
  // Pipe: 1000 bytes out, 300 SACKed, 100 lost (1000-1100): 600 in flight.
  EXPECT_EQ(s.pipe(una, max, una, 1100), 600u);
  // Retransmitting the lost 100 puts them back in flight.
  EXPECT_EQ(s.pipe(una, max, 1100, 1100), 700u);
  EXPECT_EQ(s.skip_sacked(1150), 1200u);
  EXPECT_EQ(s.next_sacked(1200, max), 1300u);
  // Blocks outside (una, max] say nothing (RFC 2883 D-SACKs, lies).
  EXPECT_EQ(s.update(sacks({{900, 1000}, {2000, 2100}, {1700, 1650}}), una, max), 0u);
  s.advance(1350);
  EXPECT_EQ(s.sacked_bytes(), 50u + 100u);
}

TEST(TcpReceiveBuffer, KeepsOutOfOrderRangesAndReportsSacksNewestFirst) {
  Budget budget(1 << 20);
  ReceiveBuffer r;
  r.start(1000);
  std::vector<uint8_t> data(300);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i);
  auto part = [&](uint32_t from, uint32_t len) {
    return std::span<const uint8_t>(data).subspan(from, len);
  };
  EXPECT_EQ(r.store(1100, part(100, 50), 65536, budget), ReceiveBuffer::Stored::ok);
  EXPECT_EQ(r.store(1200, part(200, 50), 65536, budget), ReceiveBuffer::Stored::ok);
  EXPECT_EQ(r.next(), 1000u);
  wire::TcpOptions o;
  r.sack_blocks(o, 4);
  ASSERT_EQ(o.sack_count, 2);
  EXPECT_EQ(o.sack[0], (wire::TcpSackBlock{1200, 1250}));
  EXPECT_EQ(o.sack[1], (wire::TcpSackBlock{1100, 1150}));
  EXPECT_EQ(r.store(1000, part(0, 150), 65536, budget), ReceiveBuffer::Stored::ok);
  EXPECT_EQ(r.next(), 1150u);
  EXPECT_EQ(r.store(1150, part(150, 150), 65536, budget), ReceiveBuffer::Stored::ok);
  EXPECT_EQ(r.next(), 1300u);
  EXPECT_FALSE(r.has_out_of_order());
  std::vector<uint8_t> got;
  while (r.undelivered() > 0) {
    auto s = r.undelivered_span();
    got.insert(got.end(), s.begin(), s.end());
    r.delivered(uint32_t(s.size()));
  }
  EXPECT_EQ(got, data);
  r.consume(300);
  EXPECT_EQ(r.held(), 0u);
  r.release();
  EXPECT_EQ(budget.used(), 0u);
}

TEST(TcpReceiveBuffer, BoundsRangesMemoryAndNeverMovesHeldBytes) {
  Budget budget(8192);
  ReceiveBuffer r;
  r.start(0);
  uint8_t byte = 7;
  for (uint32_t i = 0; i < ReceiveBuffer::max_ranges; ++i) {
    EXPECT_EQ(r.store(10 + 2 * i, {&byte, 1}, 65536, budget), ReceiveBuffer::Stored::ok);
  }
  EXPECT_EQ(r.store(1000, {&byte, 1}, 65536, budget), ReceiveBuffer::Stored::too_many_ranges);
  EXPECT_EQ(r.store(11, {&byte, 1}, 65536, budget), ReceiveBuffer::Stored::ok);  // joins two
  EXPECT_EQ(r.store(20000, {&byte, 1}, 65536, budget), ReceiveBuffer::Stored::no_memory);
  // Past the limit: not kept at all.
  EXPECT_EQ(r.store(70000, {&byte, 1}, 65536, budget), ReceiveBuffer::Stored::ok);
  EXPECT_LE(budget.used(), 8192u);
  Budget plenty(1 << 20);
  ReceiveBuffer held;
  held.start(0);
  std::vector<uint8_t> chunk(100, 1);
  held.store(0, chunk, 65536, plenty);
  held.delivered(100);  // the service keeps a span of these: the ring cannot move
  EXPECT_EQ(held.store(100, std::vector<uint8_t>(5000, 2), 65536, plenty),
            ReceiveBuffer::Stored::no_memory);
  held.consume(100);
  EXPECT_EQ(held.store(100, std::vector<uint8_t>(5000, 2), 65536, plenty),
            ReceiveBuffer::Stored::ok);
}

TEST(TcpSendBuffer, CopiesHandsOverAndDropsAcrossChunks) {
  Budget budget(1 << 20);
  SendBuffer s;
  std::vector<uint8_t> a(40000);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = uint8_t(i * 13);
  EXPECT_EQ(s.append(a, budget), a.size());
  auto shared = std::make_shared<std::vector<uint8_t>>(5000, 0xab);
  EXPECT_TRUE(
      s.append(TcpBuffer::from(std::shared_ptr<const std::vector<uint8_t>>(shared)), budget));
  EXPECT_EQ(s.size(), 45000u);
  std::vector<uint8_t> out(3000);
  s.copy(39000, 3000, out.data());  // across the copy and the handed-over chunk
  EXPECT_TRUE(std::equal(a.begin() + 39000, a.end(), out.begin()));
  EXPECT_TRUE(std::all_of(out.begin() + 1000, out.end(), [](uint8_t b) { return b == 0xab; }));
  s.drop_front(41000);
  EXPECT_EQ(s.size(), 4000u);
  EXPECT_EQ(shared.use_count(), 2);  // still queued
  s.drop_front(4000);
  EXPECT_EQ(shared.use_count(), 1);  // acknowledged: handed back
  EXPECT_EQ(budget.used(), 0u);
  Budget tight(2048);
  EXPECT_LE(s.append(a, tight), 2048u);
}

// 10,000 connections echoing a byte each in a 64 MiB image: once half the
// budget is out, a byte costs a small ring and a small chunk, not 2 KiB + 1 KiB.
TEST(TcpBuffers, UnderPressureSmallDataTakesSmallAllocations) {
  Budget budget(8192);
  ASSERT_TRUE(budget.take(5000));  // more than half given out
  const uint8_t byte = 7;
  ReceiveBuffer r;
  r.start(0);
  EXPECT_EQ(r.store(0, {&byte, 1}, 65536, budget), ReceiveBuffer::Stored::ok);
  EXPECT_EQ(r.capacity(), ReceiveBuffer::min_ring_under_pressure);
  SendBuffer s;
  EXPECT_EQ(s.append({&byte, 1}, budget), 1u);
  EXPECT_EQ(budget.used(),
            5000 + ReceiveBuffer::min_ring_under_pressure + SendBuffer::min_chunk_under_pressure);
  Budget relaxed(1 << 20);
  ReceiveBuffer roomy;
  roomy.start(0);
  EXPECT_EQ(roomy.store(0, {&byte, 1}, 65536, relaxed), ReceiveBuffer::Stored::ok);
  EXPECT_EQ(roomy.capacity(), ReceiveBuffer::min_ring);
}

TEST(TcpDeadlines, KeepsTheEarliestAsDeadlinesMove) {
  Deadlines d;
  std::mt19937 random(5);
  std::vector<uint64_t> expected(200, Deadlines::never);
  for (int step = 0; step < 5000; ++step) {
    uint32_t slot = random() % 200;
    uint64_t deadline = random() % 4 == 0 ? Deadlines::never : random() % 100000;
    d.set(slot, deadline);
    expected[slot] = deadline;
    uint64_t earliest = *std::min_element(expected.begin(), expected.end());
    ASSERT_EQ(d.earliest(), earliest);
    if (earliest != Deadlines::never) ASSERT_EQ(expected[d.earliest_slot()], earliest);
  }
}

TEST(TcpSynCookies, RoundTripAndExpire) {
  Secrets secrets;
  ConnectionKey key{ip4::Addr{10, 0, 0, 2}, ip4::Addr{10, 0, 0, 1}, 80, 40000};
  uint32_t cookie = SynCookies::make(secrets, key, 777, 1400, 0);
  EXPECT_EQ(SynCookies::check(secrets, key, 777, cookie, 60ull * 1'000'000'000), 1400);
  EXPECT_FALSE(SynCookies::check(secrets, key, 778, cookie, 0));      // another SYN
  EXPECT_FALSE(SynCookies::check(secrets, key, 777, cookie ^ 1, 0));  // tampered
  ConnectionKey other = key;
  other.remote_port = 40001;
  EXPECT_FALSE(SynCookies::check(secrets, other, 777, cookie, 0));  // another 4-tuple
  EXPECT_FALSE(SynCookies::check(secrets, key, 777, cookie, 128ull * 1'000'000'000));  // too old
  uint32_t ts = SynCookies::encode_timestamp(123456, {uint8_t(9), true});
  EXPECT_LE(ts, 123456u);
  auto back = SynCookies::decode_timestamp(ts);
  EXPECT_EQ(back.window_scale, 9);
  EXPECT_TRUE(back.sack);
  EXPECT_FALSE(SynCookies::decode_timestamp(SynCookies::encode_timestamp(99999, {})).window_scale);
}

}  // namespace
}  // namespace net::tcp
