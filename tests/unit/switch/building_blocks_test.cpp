// The switch's small building blocks: buffer-id store, SPSC ring, MAC table.
#include <gtest/gtest.h>

#include <thread>

#include "switch/buffer_store.h"
#include "switch/mac_table.h"
#include "switch/spsc_ring.h"

namespace flowlab::sw {
namespace {

BufferedPacket bp(Bytes data, uint32_t in_port) {
  BufferedPacket b;
  b.data = std::move(data);
  b.in_port = in_port;
  return b;
}

TEST(BufferStore, PutTakeOnce) {
  BufferStore bs(4, 1'000'000'000);
  uint32_t id = bs.put(bp({1, 2, 3}, 7), 0);
  EXPECT_NE(id, 0xffffffffu);
  EXPECT_EQ(bs.in_use(), 1u);
  auto p = bs.take(id, 10);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->in_port, 7u);
  EXPECT_EQ(p->data, (Bytes{1, 2, 3}));
  BufferStore::Miss why;
  EXPECT_FALSE(bs.take(id, 10, &why).has_value());  // used once
  EXPECT_EQ(bs.in_use(), 0u);
  EXPECT_FALSE(bs.take(0x1234, 10, &why).has_value());
  EXPECT_EQ(why, BufferStore::Miss::kUnknown);
}

TEST(BufferStore, BoundedAndTimedOut) {
  BufferStore bs(2, 100);
  uint32_t a = bs.put(bp({1}, 1), 0);
  uint32_t b = bs.put(bp({2}, 1), 0);
  uint32_t c = bs.put(bp({3}, 1), 0);  // evicts a
  EXPECT_EQ(bs.evicted(), 1u);
  EXPECT_EQ(bs.in_use(), 2u);
  EXPECT_FALSE(bs.take(a, 1).has_value());  // stale id never names the newer packet
  EXPECT_EQ(bs.take(c, 1)->data, Bytes{3});
  BufferStore::Miss why;
  EXPECT_FALSE(bs.take(b, 500, &why).has_value());
  EXPECT_EQ(why, BufferStore::Miss::kExpired);
  bs.put(bp({4}, 1), 0);
  bs.expire(1000);
  EXPECT_EQ(bs.in_use(), 0u);
  BufferStore none(0, 1);
  EXPECT_EQ(none.put(bp({1}, 1), 0), 0xffffffffu);
}

// The byte bound evicts the oldest packets first, keeps the accounting exact
// across take/expire, and still stores a packet larger than the bound alone.
TEST(BufferStore, ByteBoundEvictsOldestFirst) {
  BufferStore bs(8, 1'000'000'000, 10);
  uint32_t a = bs.put(bp(Bytes(4, 1), 1), 0);
  uint32_t b = bs.put(bp(Bytes(4, 2), 1), 0);
  EXPECT_EQ(bs.bytes(), 8u);
  uint32_t c = bs.put(bp(Bytes(4, 3), 1), 0);  // 12 > 10: a goes
  EXPECT_EQ(bs.evicted(), 1u);
  EXPECT_EQ(bs.bytes(), 8u);
  EXPECT_FALSE(bs.take(a, 1).has_value());
  EXPECT_EQ(bs.take(b, 1)->data, Bytes(4, 2));
  EXPECT_EQ(bs.bytes(), 4u);
  uint32_t big = bs.put(bp(Bytes(20, 9), 1), 0);  // evicts c, then stored alone
  EXPECT_EQ(bs.evicted(), 2u);
  EXPECT_FALSE(bs.take(c, 1).has_value());
  EXPECT_EQ(bs.in_use(), 1u);
  EXPECT_EQ(bs.bytes(), 20u);
  EXPECT_EQ(bs.take(big, 1)->data.size(), 20u);
  EXPECT_EQ(bs.bytes(), 0u);
  bs.put(bp(Bytes(3, 1), 1), 0);
  bs.expire(2'000'000'000);
  EXPECT_EQ(bs.bytes(), 0u);
  EXPECT_EQ(bs.in_use(), 0u);
}

// The ring's slots are made as it first fills (none for a switch that buffers
// nothing); ids stay valid across the growth, and a full ring evicts its oldest.
TEST(BufferStore, SlotsGrowAsTheRingFillsAndIdsHoldAcrossTheGrowth) {
  BufferStore bs(1000, 1'000'000'000);
  EXPECT_EQ(bs.capacity(), 1000u);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 1000; ++i) ids.push_back(bs.put(bp({uint8_t(i)}, uint32_t(i)), 0));
  EXPECT_EQ(bs.in_use(), 1000u);
  EXPECT_EQ(bs.evicted(), 0u);
  EXPECT_EQ(bs.take(ids[3], 1)->in_port, 3u);  // made before two growths
  EXPECT_EQ(bs.take(ids[999], 1)->in_port, 999u);
  uint32_t next = bs.put(bp({1}, 5000), 0);  // the ring turns: slot 0 (the oldest) is taken
  EXPECT_EQ(next & 0xffff, 0u);
  EXPECT_EQ(bs.evicted(), 1u);
  EXPECT_FALSE(bs.take(ids[0], 1).has_value());
  EXPECT_EQ(bs.take(ids[1], 1)->in_port, 1u);
  EXPECT_EQ(bs.take(next, 1)->in_port, 5000u);
}

TEST(SpscRing, BoundedFifoAcrossThreads) {
  SpscRing<int> r(4);
  int v = 1;
  for (int i = 0; i < 4; ++i) {
    v = i;
    EXPECT_TRUE(r.try_push(v));
  }
  v = 9;
  EXPECT_FALSE(r.try_push(v));
  EXPECT_EQ(*r.try_pop(), 0);
  SpscRing<int> big(64);
  constexpr int kN = 100000;
  std::thread prod([&] {
    for (int i = 0; i < kN;) {
      int x = i;
      if (big.try_push(x)) ++i;
    }
  });
  int expect = 0;
  while (expect < kN) {
    if (auto x = big.try_pop()) {
      ASSERT_EQ(*x, expect);
      ++expect;
    }
  }
  prod.join();
  EXPECT_FALSE(big.try_pop().has_value());
}

TEST(MacTable, LearnLookupForget) {
  MacTable t;
  EXPECT_EQ(t.lookup(0x001122334455), MacTable::kUnknown);
  t.learn(0x001122334455, 3);
  EXPECT_EQ(t.lookup(0x001122334455), 3u);
  t.learn(0x001122334455, 4);  // host moved
  EXPECT_EQ(t.lookup(0x001122334455), 4u);
  t.learn(0x010000000001, 2);  // multicast source is not learned
  EXPECT_EQ(t.lookup(0x010000000001), MacTable::kUnknown);
  for (uint64_t m = 1; m < 5000; ++m) t.learn(m << 8, uint32_t(m % 7 + 1));
  EXPECT_EQ(t.lookup(uint64_t(4999) << 8), 4999 % 7 + 1);
  t.forget_port(4);
  EXPECT_EQ(t.lookup(0x001122334455), MacTable::kUnknown);
}

}  // namespace
}  // namespace flowlab::sw
