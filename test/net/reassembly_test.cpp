// Reassembly on its own, with its explicit clock: memory bounds, fairness
// between sources, eviction order, timeouts.
#include "net/fragments/reassembly.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>

#include "frames.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Reassembly;
constexpr uint64_t ms = 1'000'000;

class ReassemblyTest : public ::testing::Test {
 protected:
  explicit ReassemblyTest(std::size_t max_bytes = 1 << 20, std::size_t per_source = 256 << 10)
      : reassembly(counters, {max_bytes, per_source, 15s}) {}

  // Feeds one IPv4 fragment; returns the datagram if it completed.
  std::optional<Bytes> feed(const Bytes& ip, uint64_t now = 0, bool to_broadcast = false) {
    ::net::PacketPtr p = ::net::allocate_heap_packet(uint32_t(ip.size()));
    std::memcpy(p->append(uint32_t(ip.size())), ip.data(), ip.size());
    ::net::PacketPtr whole = reassembly.add(std::move(p), to_broadcast, now);
    if (!whole) return std::nullopt;
    return Bytes(whole->data(), whole->data() + whole->size());
  }

  static Bytes datagram(Ip src, uint16_t id, std::size_t size) {
    return ip4(src, stack_ip, 17, pattern(size, uint8_t(id)), {.id = id});
  }

  ::net::Ip4Counters counters;
  Reassembly reassembly;
};

// What a reassembled datagram must equal: the original with its header's
// fragment field, total length and checksum as a whole datagram's.
void expect_whole(const std::optional<Bytes>& got, const Bytes& original) {
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->size(), original.size());
  ::net::wire::Ip4View<const uint8_t> whole(got->data(), got->size()),
      was(original.data(), original.size());
  ASSERT_EQ(whole.check(), ::net::wire::Ip4Error::none);
  EXPECT_EQ(::net::wire::Ip4Repr::parse(whole), ::net::wire::Ip4Repr::parse(was));
  EXPECT_TRUE(std::equal(got->begin() + 20, got->end(), original.begin() + 20));
}

TEST_F(ReassemblyTest, SixtyFourInterleavedDatagramsFromEightSourcesAllComplete) {
  std::vector<Bytes> originals;
  std::vector<std::vector<Bytes>> parts;
  for (uint8_t source = 0; source < 8; ++source) {
    for (uint16_t n = 0; n < 8; ++n) {
      originals.push_back(
          datagram(Ip{10, 0, 0, uint8_t(10 + source)}, uint16_t(100 + n), 3000 + 500 * n));
      parts.push_back(fragments(originals.back(), 1480));
    }
  }
  std::size_t completed = 0;
  for (std::size_t round = 0; round < 8; ++round) {  // one fragment of each datagram per round
    for (std::size_t d = 0; d < parts.size(); ++d) {
      if (round >= parts[d].size()) continue;
      auto got = feed(parts[d][round], round * ms);
      if (round + 1 == parts[d].size()) {
        expect_whole(got, originals[d]);
        ++completed;
      } else {
        EXPECT_FALSE(got.has_value());
      }
    }
  }
  EXPECT_EQ(completed, 64u);
  EXPECT_EQ(counters.reassembled, 64u);
  EXPECT_EQ(counters.drop_fragment_evicted + counters.drop_fragment_source_limit, 0u);
  EXPECT_EQ(reassembly.in_progress(), 0u);
  EXPECT_EQ(reassembly.bytes_held(), 0u);
}

TEST_F(ReassemblyTest, OneSourcesFloodEvictsOnlyItsOwnDatagrams) {
  Ip attacker{10, 0, 0, 66}, victim{10, 0, 0, 5};
  std::size_t delivered = 0;
  for (uint16_t id = 0; id < 2000; ++id) {
    // A first fragment that is never followed by the rest.
    feed(ip4(attacker, stack_ip, 17, pattern(1480), {.id = id, .fragment = 0x2000}), id * ms);
    EXPECT_LE(reassembly.bytes_held(), reassembly.limits().max_bytes);
    if (id % 50 == 0) {
      Bytes d = datagram(victim, id, 4000);
      auto parts = fragments(d, 1480);
      std::optional<Bytes> got;
      for (auto& p : parts) got = feed(p, id * ms);
      expect_whole(got, d);
      ++delivered;
    }
  }
  EXPECT_EQ(delivered, 40u);
  EXPECT_GT(counters.drop_fragment_source_limit, 1000u);
  EXPECT_EQ(counters.drop_fragment_evicted, 0u);  // the global budget never filled
}

TEST_F(ReassemblyTest, ManySpoofedSourcesEvictTheOldestNotTheNewest) {
  Ip victim{10, 0, 0, 5};
  std::size_t delivered = 0;
  for (uint32_t n = 0; n < 5000; ++n) {
    Ip spoofed{10, 1, uint8_t(n >> 8), uint8_t(n)};
    feed(ip4(spoofed, stack_ip, 17, pattern(1480), {.id = 1, .fragment = 0x2000}), n * ms);
    EXPECT_LE(reassembly.bytes_held(), reassembly.limits().max_bytes);
    if (n % 100 == 0) {
      Bytes d = datagram(victim, uint16_t(n), 6000);
      auto parts = fragments(d, 1480);
      std::optional<Bytes> got;
      for (auto& p : parts) got = feed(p, n * ms);
      expect_whole(got, d);
      ++delivered;
    }
  }
  EXPECT_EQ(delivered, 50u);
  EXPECT_GT(counters.drop_fragment_evicted, 4000u);
}

TEST_F(ReassemblyTest, ALargestDatagramCompletesAndFreesEverything) {
  Bytes d = datagram(peer_ip, 7, 65515);  // 65535 bytes in all
  auto parts = fragments(d, 1480);
  std::shuffle(parts.begin(), parts.end(), std::mt19937(3));
  std::optional<Bytes> got;
  for (auto& p : parts) {
    ASSERT_FALSE(got.has_value());
    got = feed(p);
  }
  expect_whole(got, d);
  EXPECT_EQ(reassembly.bytes_held(), 0u);
}

TEST_F(ReassemblyTest, IncompleteDatagramsTimeOutOldestFirst) {
  std::vector<std::pair<Bytes, std::size_t>> told;
  reassembly.set_time_exceeded(
      [&](const uint8_t* ip, std::size_t len) { told.emplace_back(Bytes(ip, ip + len), len); });
  feed(ip4(peer_ip, stack_ip, 17, pattern(1480), {.id = 1, .fragment = 0x2000}), 0);
  feed(ip4(peer_ip, stack_ip, 17, pattern(16), {.id = 2, .fragment = 200}),
       5'000 * ms);  // no fragment zero
  EXPECT_EQ(reassembly.next_deadline(), 15'000 * ms);
  reassembly.expire(15'000 * ms - 1);
  EXPECT_EQ(reassembly.in_progress(), 2u);
  reassembly.expire(15'000 * ms);
  EXPECT_EQ(reassembly.in_progress(), 1u);
  EXPECT_EQ(reassembly.next_deadline(), 20'000 * ms);
  reassembly.expire(20'000 * ms);
  EXPECT_EQ(counters.drop_fragment_timeout, 2u);
  ASSERT_EQ(told.size(), 1u);      // RFC 792: only with fragment zero
  EXPECT_EQ(told[0].second, 28u);  // its header and 8 bytes
  EXPECT_EQ(::net::wire::load16(&told[0].first[4]), 1);
  EXPECT_EQ(reassembly.bytes_held(), 0u);
  EXPECT_EQ(reassembly.next_deadline(), UINT64_MAX);
}

TEST_F(ReassemblyTest, NoTimeExceededAboutADatagramToABroadcast) {  // RFC 1122 §3.2.2
  int told = 0;
  reassembly.set_time_exceeded([&](const uint8_t*, std::size_t) { ++told; });
  feed(ip4(peer_ip, Ip{10, 0, 0, 255}, 17, pattern(1480), {.id = 1, .fragment = 0x2000}), 0, true);
  feed(ip4(peer_ip, stack_ip, 17, pattern(1480), {.id = 2, .fragment = 0x2000}), 0, false);
  reassembly.expire(15'000 * ms);
  EXPECT_EQ(counters.drop_fragment_timeout, 2u);
  EXPECT_EQ(told, 1);
}

TEST_F(ReassemblyTest, ALastFragmentShorterThanDataReceivedDiscardsTheDatagram) {
  feed(ip4(peer_ip, stack_ip, 17, pattern(16), {.id = 9, .fragment = 0x2000}));  // [0, 16), more
  feed(ip4(peer_ip, stack_ip, 17, pattern(4), {.id = 9, .fragment = 1}));        // last: ends at 12
  EXPECT_EQ(counters.drop_fragment_overlap, 1u);
  EXPECT_EQ(reassembly.in_progress(), 0u);
}

TEST_F(ReassemblyTest, TheDeliveredPacketHoldsNoReassemblyMemory) {
  Bytes d = datagram(peer_ip, 3, 40);
  auto parts = fragments(d, 16);
  ASSERT_EQ(parts.size(), 3u);
  feed(parts[0]);
  feed(parts[1]);
  EXPECT_EQ(reassembly.bytes_held(), Reassembly::chunk_size);
  ::net::PacketPtr p = ::net::allocate_heap_packet(uint32_t(parts[2].size()));
  std::memcpy(p->append(uint32_t(parts[2].size())), parts[2].data(), parts[2].size());
  ::net::PacketPtr whole = reassembly.add(std::move(p), false, 0);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->size(), 60u);
  EXPECT_EQ(reassembly.bytes_held(), 0u);  // while `whole` is still held
}

class SmallBudgetTest : public ReassemblyTest {
 protected:
  SmallBudgetTest() : ReassemblyTest(1, 1) {}  // raised to one largest datagram
};

TEST_F(SmallBudgetTest, BudgetsBelowOneDatagramAreRaisedToOne) {
  EXPECT_EQ(reassembly.limits().max_bytes, Reassembly::min_bytes);
  EXPECT_EQ(reassembly.limits().max_bytes_per_source, Reassembly::min_bytes);
  Bytes d = datagram(peer_ip, 8, 65515);
  std::optional<Bytes> got;
  for (auto& p : fragments(d, 1480)) got = feed(p);
  expect_whole(got, d);
}

}  // namespace
}  // namespace keel::test
