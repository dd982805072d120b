// Versioned classifier: what a reader pinned at a version sees while the
// writer inserts and removes, when deleted rules are unlinked and freed, and
// a randomized comparison with a model of (rule, added, removed) triples.
#include <gtest/gtest.h>

#include <random>

#include "datapath/classifier.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::OxmId;

FlowKey key(const char* dst, uint16_t dport = 80) {
  Bytes b = tcp_frame("10.0.0.1", dst, 1234, dport);
  FlowKey k;
  PacketLayers l;
  extract_flow_key(b.data(), b.size(), 1, 0, 0, k, l);
  return k;
}

of::Match net8(const char* net) {
  of::Match m;
  m.add(f(OxmId::kEthType, 0x0800)).add(fm_(OxmId::kIpv4Dst, ip4(net).v, 0xff000000));
  return m;
}

int prio_at(const Classifier::View& v, const FlowKey& k, uint64_t version) {
  const FlowEntry* e = v.lookup(k, version);
  return e ? e->priority : -1;
}

TEST(ClassifierVersions, ReaderAtAnOlderVersionSeesTheOldTable) {
  Classifier c;
  auto host = entry(50, match_ip_dst("10.0.0.2"));
  auto net = entry(10, net8("10.0.0.0"));
  c.insert(net, 1);
  auto v1 = c.publish();
  c.insert(host, 2);  // not yet published
  auto v2 = c.publish();
  EXPECT_EQ(prio_at(*v1, key("10.0.0.2"), 1), 10);
  EXPECT_EQ(prio_at(*v2, key("10.0.0.2"), 1), 10);  // version decides, not the view
  EXPECT_EQ(prio_at(*v2, key("10.0.0.2"), 2), 50);
  EXPECT_TRUE(c.remove(*host, 3));
  EXPECT_FALSE(c.remove(*host, 3));  // already deleted
  auto v3 = c.publish();
  EXPECT_EQ(prio_at(*v2, key("10.0.0.2"), 2), 50);  // a batch at version 2 still sees it
  EXPECT_EQ(prio_at(*v3, key("10.0.0.2"), 3), 10);
  EXPECT_EQ(c.size(), 1u);
}

TEST(ClassifierVersions, SameMatchDifferentPrioritiesChainHighestFirst) {
  Classifier c;
  auto lo = entry(5, match_ip_dst("10.0.0.2"));
  auto mid = entry(7, match_ip_dst("10.0.0.2"));
  auto hi = entry(9, match_ip_dst("10.0.0.2"));
  c.insert(mid, 1);
  c.insert(hi, 1);
  c.insert(lo, 1);
  auto v = c.publish();
  EXPECT_EQ(c.subtable_count(), 1u);
  EXPECT_EQ(prio_at(*v, key("10.0.0.2"), 1), 9);
  c.remove(*hi, 2);
  v = c.publish();
  EXPECT_EQ(prio_at(*v, key("10.0.0.2"), 1), 9);
  EXPECT_EQ(prio_at(*v, key("10.0.0.2"), 2), 7);
  c.unlink_invisible(Classifier::kNever, 2);  // no reader: unlinked at once
  c.free_unreachable(Classifier::kNever);
  EXPECT_FALSE(c.has_garbage());
  EXPECT_EQ(prio_at(*v, key("10.0.0.2"), 2), 7);
  c.remove(*mid, 3);
  c.remove(*lo, 3);
  v = c.publish();
  EXPECT_EQ(prio_at(*v, key("10.0.0.2"), 3), -1);
  EXPECT_EQ(c.subtable_count(), 0u);
  EXPECT_EQ(v->subtable_count(), 0u);
}

TEST(ClassifierVersions, DeletedRulesStayUntilTheOldestReaderMovesOn) {
  Classifier c;
  auto a = entry(20, match_ip_dst("10.0.0.2"));
  c.insert(a, 1);
  auto v1 = c.publish();
  c.remove(*a, 2);
  c.publish();
  // A reader is still in a batch at version 1: the rule must stay reachable for it.
  c.unlink_invisible(1, 2);
  c.free_unreachable(1);
  EXPECT_TRUE(c.has_garbage());
  EXPECT_EQ(prio_at(*v1, key("10.0.0.2"), 1), 20);
  // It moved to version 2: unlinked, but a reader that announced 2 may still walk it.
  c.unlink_invisible(2, 2);
  c.free_unreachable(2);
  EXPECT_TRUE(c.has_garbage());
  EXPECT_EQ(prio_at(*v1, key("10.0.0.2"), 2), -1);
  c.free_unreachable(3);
  EXPECT_FALSE(c.has_garbage());
}

TEST(ClassifierVersions, SubtableOrderFollowsTheTopPriority) {
  Classifier c;
  auto net = entry(100, net8("10.0.0.0"));
  auto host = entry(50, match_ip_dst("10.0.0.2"));
  c.insert(net, 1);
  c.insert(host, 1);
  auto v1 = c.publish();
  EXPECT_EQ(v1->subtable_count(), 2u);
  EXPECT_EQ(prio_at(*v1, key("10.0.0.2"), 1), 100);
  // Lower the /8's top priority below the host's: the view must be reordered,
  // or early exit would stop before the host subtable.
  auto net_low = entry(10, net8("10.0.0.0"));
  c.remove(*net, 2);
  c.insert(net_low, 2);
  auto v2 = c.publish();
  EXPECT_NE(v1, v2);
  EXPECT_EQ(prio_at(*v2, key("10.0.0.2"), 2), 50);
  EXPECT_EQ(prio_at(*v2, key("10.9.9.9"), 2), 10);
  // A change inside a subtable that keeps its top priority reuses the view.
  c.insert(entry(50, match_ip_dst("10.0.0.3")), 3);
  EXPECT_EQ(c.publish(), v2);
}

// Random inserts and removes over many versions; at each step lookups at the
// newest version and at older versions a reader could still hold must agree
// with a model, while reclamation runs with that oldest reader.
TEST(ClassifierVersions, MatchesAModelUnderChurn) {
  std::mt19937 rng(11);
  struct Model {
    FlowEntryPtr e;
    uint64_t added, removed;
  };
  std::vector<Model> model;
  Classifier c;
  const uint32_t masks[] = {0xffffffff, 0xffffff00, 0xffff0000, 0xff000000};
  uint64_t version = 1;
  std::vector<std::pair<uint64_t, std::shared_ptr<const Classifier::View>>> views;
  for (int step = 0; step < 120; ++step) {
    const uint64_t next = version + 1;
    for (int i = 0; i < 20; ++i) {
      if (!model.empty() && rng() % 3 == 0) {
        Model& m = model[rng() % model.size()];
        if (m.removed == Classifier::kNever) {
          EXPECT_TRUE(c.remove(*m.e, next));
          m.removed = next;
        }
        continue;
      }
      of::Match m;
      m.add(f(OxmId::kEthType, 0x0800));
      uint32_t mask = masks[rng() % 4];
      m.add(fm_(OxmId::kIpv4Dst, (0x0a000000 | (rng() & 0x3ff)) & mask, mask));
      if (rng() % 2) m.add(f(OxmId::kIpProto, 6)).add(f(OxmId::kTcpDst, 80 + rng() % 3));
      auto e = entry(uint16_t(rng() % 64), m);
      c.insert(e, next);
      model.push_back({e, next, Classifier::kNever});
    }
    version = next;
    views.emplace_back(version, c.publish());
    if (views.size() > 4) views.erase(views.begin());
    const uint64_t oldest = views.front().first;
    c.unlink_invisible(oldest, version);
    c.free_unreachable(oldest);
    for (const auto& [v, view] : views) {
      for (int i = 0; i < 10; ++i) {
        uint32_t dst = 0x0a000000 | (rng() & 0x3ff);
        FlowKey k = key(Ipv4Addr{dst}.to_string().c_str(), uint16_t(80 + rng() % 4));
        int best = -1;
        for (const Model& m : model)
          if (m.added <= v && v < m.removed && m.e->key.matches(k)) best = std::max(best, int(m.e->priority));
        ASSERT_EQ(prio_at(*view, k, v), best) << "step " << step << " version " << v;
      }
    }
  }
  size_t live = 0;
  for (const Model& m : model) live += m.removed == Classifier::kNever;
  EXPECT_EQ(c.size(), live);
}

}  // namespace
}  // namespace flowlab::dp
