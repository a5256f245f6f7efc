#include "util/flat_map.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

namespace {

struct IdentityHash {
  std::size_t operator()(uint32_t k) const { return k; }
};
// Every key in one chain: probing, wrap-around and backward shifts all work hard.
struct CollidingHash {
  std::size_t operator()(uint32_t k) const { return 5 + (k & 1); }
};

template <class Hash>
void random_operations_match_std(std::size_t max_entries, uint32_t key_range, int steps) {
  keel::util::FlatMap<uint32_t, uint64_t, Hash> map(max_entries);
  std::unordered_map<uint32_t, uint64_t> reference;
  std::mt19937 rng(7);
  for (int step = 0; step < steps; ++step) {
    uint32_t key = rng() % key_range;
    switch (rng() % 3) {
      case 0: {
        auto [value, inserted] = map.try_emplace(key);
        bool present = reference.count(key) != 0;
        if (!present && reference.size() >= max_entries) {
          ASSERT_EQ(value, nullptr);
          break;
        }
        ASSERT_NE(value, nullptr);
        ASSERT_EQ(inserted, !present);
        *value = step;
        reference[key] = step;
        break;
      }
      case 1:
        ASSERT_EQ(map.erase(key), reference.erase(key) == 1);
        break;
      default: {
        uint64_t* value = map.find(key);
        auto it = reference.find(key);
        ASSERT_EQ(value != nullptr, it != reference.end());
        if (value) ASSERT_EQ(*value, it->second);
      }
    }
    ASSERT_EQ(map.size(), reference.size());
  }
  std::size_t seen = 0;
  map.for_each([&](uint32_t key, uint64_t& value) {
    ++seen;
    EXPECT_EQ(reference.at(key), value);
  });
  EXPECT_EQ(seen, reference.size());
}

}  // namespace

TEST(FlatMap, RandomOperationsMatchUnorderedMap) {
  random_operations_match_std<IdentityHash>(100, 300, 200'000);
}

TEST(FlatMap, OneLongChainWrapsAndShiftsBack) {
  random_operations_match_std<CollidingHash>(20, 60, 50'000);
}

TEST(FlatMap, FullMapRefusesNewKeysButUpdatesOld) {
  keel::util::FlatMap<uint32_t, int, IdentityHash> map(3);
  for (uint32_t k = 0; k < 3; ++k) ASSERT_TRUE(map.try_emplace(k).second);
  EXPECT_TRUE(map.full());
  EXPECT_EQ(map.try_emplace(99).first, nullptr);
  auto [value, inserted] = map.try_emplace(1);
  ASSERT_NE(value, nullptr);
  EXPECT_FALSE(inserted);
  EXPECT_TRUE(map.erase(1));
  EXPECT_NE(map.try_emplace(99).first, nullptr);
}
