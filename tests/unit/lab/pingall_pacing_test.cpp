// pingall's pacing: bridges keep the broadcast budget; through switches with a
// controller the sources are cut so the packet-ins they ask for stay within
// kPacketInBudget, the echo timeout is ping's own 10 s, and ARP retries slower.
#include <gtest/gtest.h>

#include "lab/traffic/pingall.h"

namespace flowlab::lab {
namespace {

TEST(PingallPacing, BridgesKeepTheBroadcastBudget) {
  auto p = pingall_pacing(100, 32, PingallPath{});
  EXPECT_EQ(p.gap_ms, 2);
  EXPECT_EQ(p.sources, 20u);  // 1000 / 100 hosts x 2 ms
  EXPECT_EQ(p.timeout_ms, 2000);
  EXPECT_EQ(p.arp_retrans_ms, 0);                                 // the kernel's ARP timing
  EXPECT_EQ(pingall_pacing(10, 32, PingallPath{}).sources, 32u);  // capped by `parallel`
  EXPECT_FALSE(p.announce);                                       // below kAnnounceHosts: from cold
}

TEST(PingallPacing, FromKAnnounceHostsOnTheHostsAnnounceAndBridgesTakeAllSources) {
  auto p = pingall_pacing(1024, 32, PingallPath{});
  EXPECT_TRUE(p.announce);
  EXPECT_EQ(p.sources, 32u);  // no broadcast per pair left to budget (was 1 at 2 ms)
  EXPECT_EQ(p.gap_ms, 1);
  EXPECT_EQ(p.timeout_ms, 2000);
  EXPECT_FALSE(pingall_pacing(kAnnounceHosts - 1, 32, PingallPath{}).announce);
  EXPECT_TRUE(pingall_pacing(kAnnounceHosts, 32, PingallPath{}).announce);
  // Through controlled switches the packet-in budget still holds: unchanged.
  auto c = pingall_pacing(1024, 32, PingallPath{33});
  EXPECT_TRUE(c.announce);
  EXPECT_EQ(c.sources, 1u);
  EXPECT_LE(33.0 * 1000 / c.gap_ms * double(c.sources), kPacketInBudget);
}

TEST(PingallPacing, ControlledSwitchesBoundThePacketIns) {
  // linear,100: each broadcast is 100 packet-ins; one source at 2 ms asks 50000/s.
  auto p = pingall_pacing(100, 32, PingallPath{100});
  EXPECT_EQ(p.gap_ms, 2);
  EXPECT_EQ(p.sources, 1u);
  EXPECT_EQ(p.timeout_ms, 10000);
  EXPECT_LE(double(p.sources) * 100 * 1000 / p.gap_ms, kPacketInBudget);
  // ARP keeps trying for longer than 3 s but gives up before the echo's wait ends
  // (an echo still queued behind ARP at the timeout would be counted lost anyway).
  EXPECT_GT(p.arp_retrans_ms * kArpProbes, 3000);
  EXPECT_LT(p.arp_retrans_ms * kArpProbes, p.timeout_ms);
  // linear,20: 20000/s a source at 1 ms, three at once.
  auto q = pingall_pacing(20, 32, PingallPath{20});
  EXPECT_EQ(q.gap_ms, 1);
  EXPECT_EQ(q.sources, 3u);
  // 300 switches: one source alone would exceed the budget at 2 ms, so its gap widens.
  auto r = pingall_pacing(300, 32, PingallPath{300});
  EXPECT_EQ(r.sources, 1u);
  EXPECT_EQ(r.gap_ms, 5);
  EXPECT_LE(300.0 * 1000 / r.gap_ms, kPacketInBudget);
}

}  // namespace
}  // namespace flowlab::lab
