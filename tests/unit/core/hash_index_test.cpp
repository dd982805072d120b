// HashIndex: finds what was inserted under colliding hashes, erases without
// losing the entries probed past the hole (backward shift), grows, and agrees
// with std::unordered_multimap over a long random run.
#include "core/hash_index.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

namespace flowlab {
namespace {

TEST(HashIndex, FindsByHashAndPredicate) {
  HashIndex<int> h;
  EXPECT_EQ(h.find(5, [](int) { return true; }), nullptr);  // empty: no slots at all
  h.insert(5, 50);
  h.insert(5, 51);  // same hash: told apart by the predicate
  h.insert(0, 7);   // hash 0 is stored like any other
  EXPECT_EQ(h.size(), 3u);
  ASSERT_NE(h.find(5, [](int v) { return v == 51; }), nullptr);
  EXPECT_EQ(*h.find(5, [](int v) { return v == 51; }), 51);
  EXPECT_EQ(*h.find(0, [](int) { return true; }), 7);
  EXPECT_EQ(h.find(6, [](int) { return true; }), nullptr);
  EXPECT_EQ(h.find(5, [](int v) { return v == 52; }), nullptr);
}

TEST(HashIndex, EraseShiftsTheRunBack) {
  // Capacity 16 (mask 15): hashes 1, 17, 33 share home slot 1 and sit in 1, 2, 3;
  // hash 2 lands in 4. Erasing 17 must move 33 and 2 back so both stay findable.
  HashIndex<int> h;
  for (uint64_t k : {1u, 17u, 33u, 2u}) h.insert(k, int(k));
  EXPECT_TRUE(h.erase(17, [](int v) { return v == 17; }));
  EXPECT_FALSE(h.erase(17, [](int v) { return v == 17; }));
  for (uint64_t k : {1u, 33u, 2u}) {
    const int* v = h.find(k, [&](int x) { return x == int(k); });
    ASSERT_NE(v, nullptr) << k;
  }
  EXPECT_EQ(h.size(), 3u);
}

TEST(HashIndex, TakeHandsOutMoveOnlyValues) {
  HashIndex<std::unique_ptr<int>> h;
  h.insert(9, std::make_unique<int>(90));
  auto v = h.take(9, [](const std::unique_ptr<int>& p) { return *p == 90; });
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(**v, 90);
  EXPECT_EQ(h.size(), 0u);
  EXPECT_FALSE(h.take(9, [](const std::unique_ptr<int>&) { return true; }).has_value());
}

TEST(HashIndex, AgreesWithAMultimapOverARandomRun) {
  HashIndex<uint32_t> h;
  std::unordered_multimap<uint64_t, uint32_t> ref;
  std::mt19937_64 rng(42);
  std::vector<uint64_t> keys(20'000);  // a few entries per hash, and home slots shared as the index grows
  for (uint64_t& k : keys) k = rng();
  keys[0] = 0;
  uint32_t next = 0;
  for (int step = 0; step < 200'000; ++step) {
    const uint64_t key = keys[rng() % keys.size()];
    if (rng() % 3 != 0) {
      h.insert(key, next);
      ref.emplace(key, next);
      ++next;
    } else if (auto it = ref.find(key); it != ref.end()) {
      const uint32_t v = it->second;
      ASSERT_TRUE(h.erase(key, [&](uint32_t x) { return x == v; }));
      ref.erase(it);
    } else {
      ASSERT_FALSE(h.erase(key, [](uint32_t) { return true; }));
    }
  }
  ASSERT_EQ(h.size(), ref.size());
  for (const auto& kv : ref) {
    const uint32_t want = kv.second;
    ASSERT_NE(h.find(kv.first, [&](uint32_t x) { return x == want; }), nullptr);
  }
}

}  // namespace
}  // namespace flowlab
