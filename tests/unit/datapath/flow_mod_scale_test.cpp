// Flow-mod semantics on the indexed, versioned flow table: strict and
// non-strict selection under priorities and overlapping matches, cookies and
// out_port on strict commands, re-adds, a burst of thousands of flows in one
// version, and a forwarding thread running batches while flows churn.
#include <gtest/gtest.h>

#include <thread>

#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::OxmId;

of::Match net24(const char* net) {
  of::Match m;
  m.add(f(OxmId::kEthType, 0x0800)).add(fm_(OxmId::kIpv4Dst, ip4(net).v, 0xffffff00));
  return m;
}

of::FlowMod cmd(of::FlowModCommand c, uint8_t table, uint16_t prio, of::Match m, of::ActionList acts = {}) {
  of::FlowMod fm = add_flow(table, prio, std::move(m), std::move(acts));
  fm.command = c;
  return fm;
}

uint32_t last_port(Rig& r, const Bytes& frame) {
  size_t before = r.out.sent.size();
  r.send(frame);
  return r.out.sent.size() > before ? r.out.sent.back().port : 0;
}

TEST(FlowModScale, StrictDeleteHonoursCookieAndOutPort) {
  Rig r;
  auto a = add_flow(0, 10, match_ip_dst("10.0.0.2"), {Action::output(2)});
  a.cookie = 0xab;
  r.add(a);
  auto del = cmd(of::FlowModCommand::kDeleteStrict, 0, 10, match_ip_dst("10.0.0.2"));
  del.cookie = 0xac;
  del.cookie_mask = 0xff;
  ASSERT_TRUE(r.dp.flow_mod(del, r.now).ok());
  EXPECT_EQ(r.dp.flow_count(), 1u);  // wrong cookie
  del.cookie = 0xab;
  del.out_port = 3;
  ASSERT_TRUE(r.dp.flow_mod(del, r.now).ok());
  EXPECT_EQ(r.dp.flow_count(), 1u);  // does not output to 3
  del.priority = 11;
  del.out_port = of::port::kAny;
  ASSERT_TRUE(r.dp.flow_mod(del, r.now).ok());
  EXPECT_EQ(r.dp.flow_count(), 1u);  // other priority
  del.priority = 10;
  del.out_port = 2;
  ASSERT_TRUE(r.dp.flow_mod(del, r.now).ok());
  EXPECT_EQ(r.dp.flow_count(), 0u);
  EXPECT_EQ(last_port(r, tcp_frame()), 0u);
}

TEST(FlowModScale, NonStrictCommandsSelectEveryCoveredPriority) {
  Rig r;
  r.add(add_flow(0, 30, match_ip_dst("10.0.0.2"), {Action::output(2)}));
  r.add(add_flow(0, 20, match_ip_dst("10.0.0.2"), {Action::output(3)}));  // same match, lower
  r.add(add_flow(0, 10, net24("10.0.0.0"), {Action::output(4)}));         // overlaps, less specific
  r.add(add_flow(0, 5, net24("10.0.1.0"), {Action::output(4)}));
  // Modify (non-strict) by the /24 filter: the two host flows and the 10.0.0/24 flow, not 10.0.1/24.
  ASSERT_TRUE(
      r.dp.flow_mod(cmd(of::FlowModCommand::kModify, 0, 0, net24("10.0.0.0"), {Action::output(3)}), r.now)
          .ok());
  EXPECT_EQ(last_port(r, tcp_frame()), 3u);                        // prio 30, modified
  EXPECT_EQ(last_port(r, tcp_frame("10.0.0.1", "10.0.0.9")), 3u);  // prio 10, modified
  EXPECT_EQ(last_port(r, tcp_frame("10.0.0.1", "10.0.1.9")), 4u);  // not covered
  // Modify-strict touches only the exact (priority, match).
  ASSERT_TRUE(r.dp.flow_mod(cmd(of::FlowModCommand::kModifyStrict, 0, 20, match_ip_dst("10.0.0.2"),
                                {Action::output(2)}),
                            r.now)
                  .ok());
  EXPECT_EQ(last_port(r, tcp_frame()), 3u);  // 30 still wins
  // Delete-strict the top one: the prio-20 flow (same match) takes over.
  ASSERT_TRUE(
      r.dp.flow_mod(cmd(of::FlowModCommand::kDeleteStrict, 0, 30, match_ip_dst("10.0.0.2")), r.now).ok());
  EXPECT_EQ(last_port(r, tcp_frame()), 2u);
  // Delete (non-strict) by the host match: the /24 flows are less specific, they stay.
  ASSERT_TRUE(r.dp.flow_mod(cmd(of::FlowModCommand::kDelete, 0, 0, match_ip_dst("10.0.0.2")), r.now).ok());
  EXPECT_EQ(r.dp.flow_count(), 2u);
  EXPECT_EQ(last_port(r, tcp_frame()), 3u);  // falls to the /24 at prio 10
}

TEST(FlowModScale, ReAddReplacesInPlaceKeepingCountersUnlessReset) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {Action::output(2)}));
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.3"), {Action::output(3)}));
  r.send(tcp_frame());
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {Action::output(4)}));
  EXPECT_EQ(r.dp.flow_count(), 2u);
  of::FlowStatsRequest req;
  auto st = r.dp.flow_stats(req, r.now);
  ASSERT_TRUE(st.ok());
  ASSERT_EQ(st->stats.size(), 2u);
  EXPECT_EQ(st->stats[0].match, match_ip_dst("10.0.0.2"));  // kept its place in dump order
  EXPECT_EQ(st->stats[0].packet_count, 1u);                 // OF1.3: copied from the replaced flow
  EXPECT_EQ(last_port(r, tcp_frame()), 4u);
  st = r.dp.flow_stats(req, r.now);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->stats[0].packet_count, 2u);
  of::FlowMod reset = add_flow(0, 10, match_ip_dst("10.0.0.2"), {Action::output(2)});
  reset.flags = of::flow_mod_flags::kResetCounts;
  r.add(reset);
  st = r.dp.flow_stats(req, r.now);
  ASSERT_TRUE(st.ok());
  ASSERT_EQ(st->stats.size(), 2u);
  EXPECT_EQ(st->stats[0].packet_count, 0u);
  EXPECT_EQ(last_port(r, tcp_frame()), 2u);
}

TEST(FlowModScale, DeleteAndReAddInOneVersion) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {Action::output(2)}));
  const uint64_t v0 = r.dp.version();
  {
    DeferredPublish batch(r.dp);
    ASSERT_TRUE(
        r.dp.flow_mod(cmd(of::FlowModCommand::kDeleteStrict, 0, 10, match_ip_dst("10.0.0.2")), r.now).ok());
    r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {Action::output(3)}));
    EXPECT_EQ(last_port(r, tcp_frame()), 2u);  // forwarding still sees the old version
  }
  EXPECT_EQ(r.dp.version(), v0 + 1);
  EXPECT_EQ(last_port(r, tcp_frame()), 3u);
}

// 20,000 host flows in bursts of 1,000 (one version each), then every other
// one deleted strictly: each packet finds its own flow, deleted ones miss.
TEST(FlowModScale, TwentyThousandFlowsInBursts) {
  Rig r;
  auto host = [](int i) { return fmt::format("10.{}.{}.{}", (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff); };
  const uint64_t v0 = r.dp.version();
  for (int b = 0; b < 20; ++b) {
    DeferredPublish batch(r.dp);
    for (int i = b * 1000; i < (b + 1) * 1000; ++i)
      r.add(add_flow(0, 20, match_ip_dst(host(i).c_str()), {Action::output(1 + uint32_t(i % 4))}));
  }
  EXPECT_EQ(r.dp.version(), v0 + 20);
  EXPECT_EQ(r.dp.flow_count(), 20000u);
  {
    DeferredPublish batch(r.dp);
    for (int i = 0; i < 20000; i += 2)
      ASSERT_TRUE(
          r.dp.flow_mod(cmd(of::FlowModCommand::kDeleteStrict, 0, 20, match_ip_dst(host(i).c_str())), r.now)
              .ok());
  }
  EXPECT_EQ(r.dp.flow_count(), 10000u);
  for (int i = 0; i < 20000; i += 997) {
    uint32_t want = i % 2 ? 1 + uint32_t(i % 4) : 0;
    EXPECT_EQ(last_port(r, tcp_frame("10.0.0.1", host(i).c_str())), want) << host(i);
  }
  EXPECT_EQ(r.dp.table_stats().stats[0].active_count, 10000u);
}

// A forwarding thread runs batches to 64 destinations while the agent adds,
// modifies and deletes their flows in bursts. Each flow outputs to port 1 + (i % 4)
// and sets eth_dst to that port: every packet that comes out must agree with
// one version of its flow. Under ASan this also catches a rule freed while a
// reader walks it.
TEST(FlowModScale, ForwardingDuringChurnSeesWholeVersions) {
  FakePorts ports;
  Datapath dp({}, &ports);
  struct CheckOut : OutputSink {
    std::atomic<uint64_t> good{0}, bad{0};
    void output(const Packet& pkt, uint32_t port, uint32_t) override {
      (pkt.data()[5] == port ? good : bad).fetch_add(1);
    }
  } out;
  CaptureCtl ctl;
  auto host = [](int i) { return fmt::format("10.0.1.{}", i); };
  auto flow = [&](int i, uint32_t port) {
    return add_flow(0, uint16_t(10 + i % 3), match_ip_dst(host(i).c_str()),
                    {Action::set_field(f(OxmId::kEthDst, port)), Action::output(port)});
  };
  std::atomic<bool> stop{false};
  std::thread fwd([&] {
    ForwardingContext ctx(dp, out, ctl);
    std::vector<Bytes> frames;
    for (int i = 0; i < 64; ++i) frames.push_back(tcp_frame("10.0.0.1", host(i).c_str()));
    std::vector<Packet> pkts;
    for (int i = 0; i < 16; ++i) pkts.emplace_back(2048);
    for (uint64_t n = 0; !stop.load(); ++n) {
      PacketBatch b;
      for (size_t i = 0; i < pkts.size(); ++i) {
        const Bytes& fr = frames[(n * 16 + i) % frames.size()];
        pkts[i].assign(fr.data(), fr.size());
        pkts[i].in_port = 1;
        b.pkts.push_back(&pkts[i]);
      }
      dp.process_batch(ctx, b, 5);
    }
  });
  for (int round = 0; round < 200; ++round) {
    DeferredPublish batch(dp);
    for (int i = round % 2; i < 64; i += 2) {
      if (round % 3 == 0) {
        of::FlowMod del =
            cmd(of::FlowModCommand::kDeleteStrict, 0, uint16_t(10 + i % 3), match_ip_dst(host(i).c_str()));
        ASSERT_TRUE(dp.flow_mod(del, 2).ok());
      } else {
        ASSERT_TRUE(dp.flow_mod(flow(i, 1 + uint32_t((i + round) % 4)), 2).ok());
      }
    }
    if (round % 10 == 0) dp.expire(3);  // reclaims too
  }
  while (out.good.load() < 2000) std::this_thread::yield();
  stop = true;
  fwd.join();
  EXPECT_EQ(out.bad.load(), 0u);
  EXPECT_GT(out.good.load(), 0u);
}

}  // namespace
}  // namespace flowlab::dp
