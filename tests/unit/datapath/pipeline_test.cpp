// Multi-table pipeline: goto-table, write/clear actions and the action-set
// order, write-metadata, counters, the flow cache and version publication
// under a concurrent flow-mod thread.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "packet/checksum.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::Instruction;
using of::OxmId;

TEST(Pipeline, GotoTableWriteMetadataAndActionSet) {
  Rig r;
  // Table 0: write metadata, write actions (output 2 + set eth_dst), go to 1.
  of::FlowMod t0 = add_flow(0, 1, {}, {});
  t0.instructions = {Instruction::write_metadata(0xab00, 0xff00),
                     Instruction::write({Action::output(2), Action::set_field(f(OxmId::kEthDst, 0xcc))}),
                     Instruction::goto_table(1)};
  r.add(t0);
  // Table 1 matches the metadata; overrides the output in the action set and adds a VLAN push.
  of::Match md;
  md.add(fm_(OxmId::kMetadata, 0xab00, 0xff00));
  of::FlowMod t1 = add_flow(1, 1, md, {});
  t1.instructions = {Instruction::write({Action::output(3), Action::push_vlan(0x8100)})};
  r.add(t1);
  r.send(tcp_frame());
  ASSERT_EQ(r.out.ports(), std::vector<uint32_t>{3});
  const Bytes& o = r.out.sent[0].data;
  EXPECT_EQ(o[5], 0xcc);                 // set-field from table 0's write-actions
  EXPECT_EQ(load_be16(&o[12]), 0x8100);  // push_vlan ran (before set-field, per the action-set order)
  auto ts = r.dp.table_stats();
  EXPECT_EQ(ts.stats[0].lookup_count, 1u);
  EXPECT_EQ(ts.stats[1].matched_count, 1u);
}

TEST(Pipeline, ClearActionsAndMissInLaterTable) {
  Rig r;
  of::FlowMod t0 = add_flow(0, 1, {}, {});
  t0.instructions = {Instruction::write({Action::output(2)}), Instruction::goto_table(2)};
  r.add(t0);
  of::FlowMod t2 = add_flow(2, 1, match_ip_dst("10.0.0.2"), {});
  t2.instructions = {Instruction::clear()};
  r.add(t2);
  r.send(tcp_frame());  // cleared: nothing
  EXPECT_TRUE(r.out.sent.empty());
  r.send(tcp_frame("10.0.0.1", "10.0.0.7"));  // miss in table 2: dropped, action set not executed
  EXPECT_TRUE(r.out.sent.empty());
  EXPECT_EQ(r.dp.counters().table_miss_drops, 1u);
  EXPECT_EQ(r.dp.counters().action_drops, 1u);
}

TEST(Pipeline, ApplyActionsChangeWhatLaterTablesMatch) {
  Rig r;
  of::FlowMod t0 =
      add_flow(0, 1, match_ip_dst("10.0.0.2"), {Action::set_field(f(OxmId::kIpv4Dst, ip4("10.0.0.5").v))});
  t0.instructions.push_back(Instruction::goto_table(1));
  r.add(t0);
  r.add(add_flow(1, 1, match_ip_dst("10.0.0.5"), {Action::output(4)}));
  r.send(tcp_frame());
  ASSERT_EQ(r.out.ports(), std::vector<uint32_t>{4});
  EXPECT_TRUE(csum::checksums_ok(r.out.sent[0].data.data(), r.out.sent[0].data.size()));
}

// pop_mpls re-extracts the key: the next table matches the ICMP header that
// was behind the label (type and code), as it would on a plain IPv4 frame.
TEST(Pipeline, PopMplsThenGotoMatchesIcmpBehindTheLabel) {
  Rig r;
  of::Match mpls;
  mpls.add(f(OxmId::kEthType, 0x8847));
  of::FlowMod t0 = add_flow(0, 1, mpls, {Action::pop_mpls(0x0800)});
  t0.instructions.push_back(Instruction::goto_table(1));
  r.add(t0);
  of::Match icmp;
  icmp.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 1)).add(f(OxmId::kIcmpv4Type, 8));
  r.add(add_flow(1, 2, icmp, {Action::output(2)}));
  of::Match code;
  code.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 1)).add(f(OxmId::kIcmpv4Code, 3));
  r.add(add_flow(1, 1, code, {Action::output(3)}));
  auto frame = [](uint8_t type, uint8_t c) {
    return FrameBuilder()
        .eth(mac(0x0a0000000002), mac(0x0a0000000001))
        .mpls(100)
        .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
        .icmp(type, c)
        .build();
  };
  r.send(frame(8, 0));  // echo request: the type flow
  r.send(frame(3, 3));  // port unreachable: the code flow
  r.send(frame(0, 0));  // echo reply: neither, a miss in table 1
  ASSERT_EQ(r.out.ports(), (std::vector<uint32_t>{2, 3}));
  const Bytes& o = r.out.sent[0].data;
  EXPECT_EQ(load_be16(&o[12]), 0x0800);
  EXPECT_EQ(o[14 + 20], 8);  // the ICMP type right after the IPv4 header
  auto ts = r.dp.table_stats();
  EXPECT_EQ(ts.stats[1].lookup_count, 3u);
  EXPECT_EQ(ts.stats[1].matched_count, 2u);
}

TEST(Pipeline, CacheIsInvalidatedByNewVersion) {
  Rig r;
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.2"), {Action::output(2)}));
  r.send(tcp_frame());
  r.send(tcp_frame());
  DatapathCounters c = r.dp.counters();
  EXPECT_EQ(c.cache_misses, 1u);
  EXPECT_EQ(c.cache_hits, 1u);
  uint64_t v = r.dp.version();
  r.add(add_flow(0, 2, match_ip_dst("10.0.0.2"), {Action::output(3)}));
  EXPECT_GT(r.dp.version(), v);
  r.send(tcp_frame());
  EXPECT_EQ(r.out.sent.back().port, 3u);
  EXPECT_EQ(r.dp.counters().cache_misses, 2u);
  // Cached misses are invalidated too.
  r.send(tcp_frame("10.0.0.1", "10.0.0.9"));
  r.add(add_flow(0, 0, {}, {Action::output(4)}));
  r.send(tcp_frame("10.0.0.1", "10.0.0.9"));
  EXPECT_EQ(r.out.sent.back().port, 4u);
}

TEST(Pipeline, FlowCountersPerFlow) {
  Rig r;
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.2"), {Action::output(2)}));
  for (int i = 0; i < 5; ++i) r.send(tcp_frame());
  auto st = r.dp.flow_stats({}, r.now + 3'000'000'000);
  ASSERT_EQ(st->stats.size(), 1u);
  EXPECT_EQ(st->stats[0].packet_count, 5u);
  EXPECT_EQ(st->stats[0].byte_count, 5 * tcp_frame().size());
  EXPECT_EQ(st->stats[0].duration_sec, 3u);
  EXPECT_EQ(r.dp.counters().packets, 5u);
}

// A forwarding thread runs batches while the agent thread flips the only
// forwarding flow between two versions (output 2 or output 3, each also
// rewriting eth_dst to 2 or 3). Every packet must come out consistent with
// exactly one version: port N carries eth_dst N.
TEST(Pipeline, ConcurrentFlowModsNeverShowTornState) {
  FakePorts ports;
  Datapath dp({}, &ports);
  struct CheckOut : OutputSink {
    std::atomic<uint64_t> good{0}, bad{0};
    void output(const Packet& pkt, uint32_t port, uint32_t) override {
      (pkt.data()[5] == port ? good : bad).fetch_add(1);
    }
  } out;
  CaptureCtl ctl;
  auto flow = [](uint32_t port) {
    auto fm = add_flow(0, 10, match_ip_dst("10.0.0.2"),
                       {Action::set_field(f(OxmId::kEthDst, port)), Action::output(port)});
    // Churn: a second table and groups change too.
    return fm;
  };
  ASSERT_TRUE(dp.flow_mod(flow(2), 1).ok());
  std::atomic<bool> stop{false};
  std::thread fwd([&] {
    ForwardingContext ctx(dp, out, ctl);
    Bytes fr = tcp_frame();
    std::vector<Packet> pkts;
    for (int i = 0; i < 16; ++i) pkts.emplace_back(2048);
    while (!stop.load()) {
      PacketBatch b;
      for (auto& p : pkts) {
        p.assign(fr.data(), fr.size());
        p.in_port = 1;
        b.pkts.push_back(&p);
      }
      dp.process_batch(ctx, b, 5);
    }
  });
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(dp.flow_mod(flow(i % 2 ? 2 : 3), 2).ok());
    of::FlowMod extra = add_flow(1, uint16_t(i), match_ip_dst("10.1.0.1"), {Action::output(1)});
    ASSERT_TRUE(dp.flow_mod(extra, 2).ok());
  }
  // Let the forwarder see the final version.
  while (out.good.load() < 1000) std::this_thread::yield();
  stop = true;
  fwd.join();
  EXPECT_GT(out.good.load(), 0u);
  EXPECT_EQ(out.bad.load(), 0u);
  EXPECT_EQ(dp.flow_count(), 301u);
  EXPECT_GE(dp.counters().packets, out.good.load());
}

TEST(Pipeline, DeferredPublishShowsABurstAtOnce) {
  Rig r;
  const uint64_t v0 = r.dp.version();
  {
    DeferredPublish batch(r.dp);
    r.add(add_flow(0, 1, match_ip_dst("10.0.0.2"), {Action::output(2)}));
    r.add(add_flow(0, 1, match_ip_dst("10.0.0.3"), {Action::output(3)}));
    EXPECT_EQ(r.dp.flow_count(), 2u);  // the agent sees its changes
    EXPECT_EQ(r.dp.version(), v0);     // forwarding does not, yet
    r.send(tcp_frame());
    EXPECT_TRUE(r.out.sent.empty());
  }
  EXPECT_EQ(r.dp.version(), v0 + 1);  // one publication for the burst
  r.send(tcp_frame());
  r.send(tcp_frame("10.0.0.1", "10.0.0.3"));
  EXPECT_EQ(r.out.ports(), (std::vector<uint32_t>{2, 3}));
}

}  // namespace
}  // namespace flowlab::dp

namespace flowlab::dp {
namespace {

using namespace testing;

// set-config frag flags: NORMAL runs fragments through the tables (a later
// fragment has no L4 ports), DROP drops every IPv4 fragment before them.
TEST(Pipeline, FragDropDropsFragmentsBeforeTheTables) {
  Rig r;
  r.add(add_flow(0, 1, {}, {of::Action::output(2)}));
  Bytes first = udp_frame();
  first[20] = 0x20;  // flags/offset: MF set, offset 0 (a first fragment)
  Bytes later = udp_frame();
  later[20] = 0x00;
  later[21] = 0x10;  // offset 16 x 8 bytes, last fragment
  r.send(first);
  r.send(later);
  r.send(udp_frame());
  EXPECT_EQ(r.out.sent.size(), 3u);  // OFPC_FRAG_NORMAL (default): all forwarded
  EXPECT_EQ(r.dp.counters().frag_drops, 0u);

  of::SwitchConfig c;
  c.flags = of::config_flags::kFragDrop;
  r.dp.set_switch_config(c);
  r.out.sent.clear();
  r.send(first);
  r.send(later);
  r.send(udp_frame());
  ASSERT_EQ(r.out.sent.size(), 1u);  // only the unfragmented datagram
  EXPECT_EQ(r.out.sent[0].data, udp_frame());
  EXPECT_EQ(r.dp.counters().frag_drops, 2u);
  EXPECT_EQ(r.dp.table_stats().stats[0].lookup_count, 4u);  // fragments never reached table 0
}

}  // namespace
}  // namespace flowlab::dp
