// Tuple-space classifier: priorities across subtables, masks, and a randomized
// comparison with a linear scan over many tuples.
#include "datapath/classifier.h"

#include <gtest/gtest.h>

#include <random>

#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::OxmId;

FlowKey key(const char* dst, uint16_t dport = 80, uint32_t in_port = 1) {
  Bytes b = tcp_frame("10.0.0.1", dst, 1234, dport);
  FlowKey k;
  PacketLayers l;
  extract_flow_key(b.data(), b.size(), in_port, 0, 0, k, l);
  return k;
}

TEST(Classifier, HighestPriorityAcrossSubtables) {
  of::Match any;
  of::Match net;
  net.add(f(OxmId::kEthType, 0x0800)).add(fm_(OxmId::kIpv4Dst, ip4("10.0.0.0").v, 0xff000000));
  of::Match host = match_ip_dst("10.0.0.2");
  of::Match web = match_ip_dst("10.0.0.2");
  web.add(f(OxmId::kIpProto, 6)).add(f(OxmId::kTcpDst, 80));
  auto c = Classifier::build({entry(1, any), entry(50, host), entry(100, net), entry(200, web)});
  EXPECT_EQ(c.subtable_count(), 4u);
  EXPECT_EQ(c.lookup(key("10.0.0.2"))->priority, 200);
  EXPECT_EQ(c.lookup(key("10.0.0.2", 443))->priority, 100);
  EXPECT_EQ(c.lookup(key("11.0.0.2"))->priority, 1);
  auto c2 = Classifier::build({entry(50, host)});
  EXPECT_EQ(c2.lookup(key("10.0.0.3")), nullptr);
  EXPECT_EQ(Classifier().lookup(key("10.0.0.3")), nullptr);
}

TEST(Classifier, MatchesLinearScanOnRandomRules) {
  std::mt19937 rng(7);
  std::vector<FlowEntryPtr> rules;
  const uint32_t masks[] = {0xffffffff, 0xffffff00, 0xffff0000, 0xff000000};
  for (int i = 0; i < 400; ++i) {
    of::Match m;
    m.add(f(OxmId::kEthType, 0x0800));
    uint32_t mask = masks[rng() % 4];
    m.add(fm_(OxmId::kIpv4Dst, (0x0a000000 | (rng() & 0x3ff)) & mask, mask));
    if (rng() % 2) m.add(f(OxmId::kIpProto, 6)).add(f(OxmId::kTcpDst, 80 + rng() % 3));
    if (rng() % 3 == 0) m.add(f(OxmId::kInPort, 1 + rng() % 2));
    rules.push_back(entry(uint16_t(rng() % 1000), m));
  }
  auto c = Classifier::build(rules);
  for (int i = 0; i < 2000; ++i) {
    uint32_t dst = 0x0a000000 | (rng() & 0x3ff);
    FlowKey k = key(Ipv4Addr{dst}.to_string().c_str(), uint16_t(80 + rng() % 4), 1 + rng() % 2);
    const FlowEntry* best = nullptr;
    for (const auto& r : rules)
      if (r->key.matches(k) && (!best || r->priority > best->priority)) best = r.get();
    const FlowEntry* got = c.lookup(k);
    ASSERT_EQ(got ? got->priority : -1, best ? best->priority : -1) << i;
  }
}

TEST(MatchKey, RelationsForFlowMod) {
  auto a = *compile_match(match_ip_dst("10.0.0.2"));
  of::Match ip;
  ip.add(f(OxmId::kEthType, 0x0800));
  auto b = *compile_match(ip);
  of::Match net;
  net.add(f(OxmId::kEthType, 0x0800)).add(fm_(OxmId::kIpv4Dst, ip4("10.0.0.0").v, 0xffffff00));
  auto n = *compile_match(net);
  EXPECT_TRUE(a.covered_by(b));
  EXPECT_TRUE(a.covered_by(n));
  EXPECT_FALSE(n.covered_by(a));
  EXPECT_TRUE(a.overlaps(n));
  EXPECT_FALSE(a.overlaps(*compile_match(match_ip_dst("10.0.0.3"))));
  of::Match vlan;
  vlan.add(fm_(OxmId::kVlanVid, 0x1000, 0x1000));
  auto v = *compile_match(vlan);
  FlowKey untagged = key("10.0.0.2");
  EXPECT_FALSE(v.matches(untagged));
  untagged.vlan_vid = 0x1000 | 5;
  EXPECT_TRUE(v.matches(untagged));
}

}  // namespace
}  // namespace flowlab::dp
