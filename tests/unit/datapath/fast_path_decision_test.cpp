// decide_for_fast_path: what the pipeline hands over to the kernel fast path,
// and what it keeps (meters, select / fast-failover groups, buckets that
// modify, controller, LOCAL, unusable ports, OF1.0 misses); FLOOD and groups
// ALL / INDIRECT become outputs; account_fast_path_hits folds kernel hits into
// flow, table and group counters.
#include "datapath/fast_path_decision.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace flowlab::dp::testing {
namespace {

using of::Action;
using of::Instruction;
using of::OxmId;
using Kind = FastPathOp::Kind;

FlowKey key_of(const Bytes& frame, uint32_t in_port = 1) {
  FlowKey k;
  PacketLayers l;
  extract_flow_key(frame.data(), frame.size(), in_port, 0, 0, k, l);
  return k;
}

Action dec_ttl() {
  Action a;
  a.type = of::ActionType::kDecNwTtl;
  return a;
}

auto all_ports = [](uint32_t p) { return p >= 1 && p <= 4; };

std::optional<FastPathDecision> decide(Rig& r, const Bytes& frame, uint32_t in_port = 1) {
  r.send(frame, in_port);  // pins the snapshot the decision is made from
  return decide_for_fast_path(r.ctx, key_of(frame, in_port), all_ports);
}

TEST(FastPathDecision, OutputsAndSetFieldsInOrder) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"),
                 {Action::output(2), Action::set_field(f(OxmId::kIpv4Dst, ip4("10.9.9.9").v)), dec_ttl(),
                  Action::output(3)}));
  auto d = decide(r, udp_frame());
  ASSERT_TRUE(d);
  ASSERT_EQ(d->n_ops, 4u);
  EXPECT_EQ(d->ops[0].kind, Kind::kOutput);
  EXPECT_EQ(d->ops[0].port, 2u);
  EXPECT_EQ(d->ops[1].kind, Kind::kSetIpv4Dst);
  EXPECT_EQ(d->ops[1].value, ip4("10.9.9.9").v);
  EXPECT_EQ(d->ops[2].kind, Kind::kDecTtl);
  EXPECT_EQ(d->ops[3].port, 3u);
  EXPECT_EQ(d->n_flows, 1u);
  EXPECT_EQ(d->version, r.dp.version());
}

// Megaflow: the decision reports the bits the tables it visited can read.
TEST(FastPathDecision, ReadMaskIsWhatTheVisitedTablesMatch) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {Action::output(2)}));
  r.add(add_flow(0, 1, {}, {Action::output(3)}));
  auto d = decide(r, udp_frame());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->read_mask.ipv4_dst, 0xffffffffu);
  EXPECT_EQ(d->read_mask.eth_type, 0xffff);  // the ip prerequisite
  EXPECT_EQ(d->read_mask.ipv4_src, 0u);
  EXPECT_EQ(d->read_mask.tp_dst, 0);
  EXPECT_EQ(d->read_mask.ip_proto, 0);
  // A set-field of an IPv4 address needs the protocol (its L4 checksum fixup).
  Rig r2;
  r2.add(add_flow(0, 1, match_ip_dst("10.0.0.2"),
                  {Action::set_field(f(OxmId::kIpv4Src, ip4("10.9.9.9").v)), Action::output(2)}));
  auto d2 = decide(r2, udp_frame());
  ASSERT_TRUE(d2);
  EXPECT_EQ(d2->read_mask.ip_proto, 0xff);
  EXPECT_EQ(d2->read_mask.ipv4_src, 0u);
}

TEST(FastPathDecision, GotoTableAndActionSetOrder) {
  Rig r;
  of::FlowMod t0 = add_flow(0, 1, {}, {});
  t0.instructions = {Instruction::write({Action::output(2)}), Instruction::goto_table(1)};
  r.add(t0);
  of::FlowMod t1 = add_flow(1, 1, {}, {});
  t1.instructions = {Instruction::write({Action::output(4), Action::set_field(f(OxmId::kEthDst, 0xcc))})};
  r.add(t1);
  auto d = decide(r, tcp_frame());
  ASSERT_TRUE(d);
  ASSERT_EQ(d->n_ops, 2u);
  EXPECT_EQ(d->ops[0].kind, Kind::kSetEthDst);  // set-field before output in the action set
  EXPECT_EQ(d->ops[1].port, 4u);                // table 1's output replaced table 0's
  EXPECT_EQ(d->n_flows, 2u);
}

TEST(FastPathDecision, TableMissIsADropInOf13) {
  Rig r;
  auto d = decide(r, udp_frame());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->n_ops, 0u);
  EXPECT_EQ(d->miss_table, 0u);
}

TEST(FastPathDecision, WhatStaysInTheSlowPath) {
  for (of::ActionList acts : std::vector<of::ActionList>{{Action::output(of::port::kController)},
                                                         {Action::output(of::port::kLocal)},
                                                         {Action::push_vlan(0x8100), Action::output(2)},
                                                         {Action::output(9)}}) {
    Rig r;
    r.add(add_flow(0, 10, {}, acts));
    EXPECT_FALSE(decide(r, udp_frame())) << acts.size();
  }
  Rig of10({.n_tables = 1, .of10 = true});
  EXPECT_FALSE(decide(of10, udp_frame()));  // OF1.0 misses go to the controller
  Rig arp;
  arp.add(add_flow(0, 10, {}, {Action::output(2)}));
  Bytes ipv6 = udp_frame();
  ipv6[12] = 0x86;
  ipv6[13] = 0xdd;
  EXPECT_FALSE(decide(arp, ipv6));  // not IPv4: no kernel key
}

// FLOOD and ALL: one output per listed port but in_port, in list order; a
// port that cannot bypass the slow path keeps the decision there.
TEST(FastPathDecision, FloodIsAnOutputPerPortButInPort) {
  for (uint32_t flood : {of::port::kFlood, of::port::kAll}) {
    Rig r;
    r.add(add_flow(0, 10, {}, {Action::output(flood)}));
    auto d = decide(r, udp_frame(), 2);
    ASSERT_TRUE(d);
    ASSERT_EQ(d->n_ops, 3u);
    EXPECT_EQ(d->ops[0].port, 1u);
    EXPECT_EQ(d->ops[1].port, 3u);
    EXPECT_EQ(d->ops[2].port, 4u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(d->ops[i].kind, Kind::kOutput);
  }
  Rig r;
  r.ports.ports = {1, 2, 3, 4, 5};  // 5 is not usable (all_ports: 1..4)
  r.add(add_flow(0, 10, {}, {Action::output(of::port::kFlood)}));
  EXPECT_FALSE(decide(r, udp_frame(), 2));
}

of::Bucket bucket_of(of::ActionList acts) {
  of::Bucket b;
  b.actions = std::move(acts);
  return b;
}
void add_group(Rig& r, uint32_t id, of::GroupType type, std::vector<of::Bucket> buckets) {
  of::GroupMod gm;
  gm.group_id = id;
  gm.type = type;
  gm.buckets = std::move(buckets);
  auto res = r.dp.group_mod(gm, r.now);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
}

// Groups ALL and INDIRECT whose buckets only output become their outputs
// (apply-actions and the action set); their hits count in the group and
// bucket counters. Buckets that modify, select and fast-failover stay.
TEST(FastPathDecision, GroupsAllAndIndirectBecomeOutputsWithTheirCounters) {
  Rig r;
  add_group(r, 1, of::GroupType::kAll, {bucket_of({Action::output(2)}), bucket_of({Action::output(3)})});
  add_group(r, 2, of::GroupType::kIndirect, {bucket_of({Action::output(4)})});
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {Action::group(1), Action::output(4)}));
  of::FlowMod w5 = add_flow(0, 5, {}, {});
  w5.instructions = {Instruction::write({Action::group(2), Action::output(3)})};
  r.add(w5);
  auto d = decide(r, udp_frame());
  ASSERT_TRUE(d);
  ASSERT_EQ(d->n_ops, 3u);
  EXPECT_EQ(d->ops[0].port, 2u);
  EXPECT_EQ(d->ops[1].port, 3u);
  EXPECT_EQ(d->ops[2].port, 4u);
  ASSERT_EQ(d->n_groups, 1u);
  EXPECT_EQ(d->groups[0].n_buckets, 2u);
  const uint64_t p0 = d->groups[0].counters->packets.load(),
                 b0 = d->groups[0].counters->bucket_bytes[1].load();
  account_fast_path_hits(r.dp, *d, 5, 500, 1);
  EXPECT_EQ(d->groups[0].counters->packets.load(), p0 + 5);
  EXPECT_EQ(d->groups[0].counters->bucket_bytes[1].load(), b0 + 500);

  // ip_dst 10.0.0.9: the write-actions flow, group 2 replaces its output.
  auto w = decide(r, udp_frame("10.0.0.1", "10.0.0.9"));
  ASSERT_TRUE(w);
  ASSERT_EQ(w->n_ops, 1u);
  EXPECT_EQ(w->ops[0].port, 4u);
  EXPECT_EQ(w->n_groups, 1u);

  for (auto type : {of::GroupType::kSelect, of::GroupType::kFastFailover}) {
    Rig g;
    of::Bucket b = bucket_of({Action::output(2)});
    if (type == of::GroupType::kSelect) b.weight = 1;
    b.watch_port = 2;
    add_group(g, 3, type, {b});
    g.add(add_flow(0, 10, {}, {Action::group(3)}));
    EXPECT_FALSE(decide(g, udp_frame()));
  }
  Rig m;
  add_group(m, 4, of::GroupType::kAll,
            {bucket_of({Action::set_field(f(OxmId::kIpv4Dst, ip4("10.9.9.9").v)), Action::output(2)})});
  m.add(add_flow(0, 10, {}, {Action::group(4)}));
  EXPECT_FALSE(decide(m, udp_frame()));  // the bucket runs on a copy in the pipeline
}

TEST(FastPathDecision, OutputToInPortIsSkippedUnlessInPort) {
  Rig r;
  r.add(add_flow(0, 10, {}, {Action::output(1), Action::output(of::port::kInPort)}));
  auto d = decide(r, udp_frame(), 1);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->n_ops, 1u);
  EXPECT_EQ(d->ops[0].port, 1u);  // only IN_PORT sends back
}

TEST(FastPathDecision, KernelHitsFoldIntoFlowAndTableCounters) {
  Rig r;
  r.add(add_flow(0, 10, {}, {Action::output(2)}));
  auto d = decide(r, udp_frame());
  ASSERT_TRUE(d);
  account_fast_path_hits(r.dp, *d, 10, 1000, r.now + 5);
  auto fs = r.dp.flow_stats({}, r.now + 5);
  ASSERT_TRUE(fs.ok());
  ASSERT_EQ(fs->stats.size(), 1u);
  EXPECT_EQ(fs->stats[0].packet_count, 11u);  // 1 through the pipeline + 10 in the kernel
  EXPECT_EQ(r.dp.table_stats().stats[0].matched_count, 11u);
}

}  // namespace
}  // namespace flowlab::dp::testing
