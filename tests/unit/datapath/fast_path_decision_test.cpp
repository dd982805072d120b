// decide_for_fast_path: what the pipeline hands over to the kernel fast path,
// and what it keeps (meters, groups, controller, FLOOD, unusable ports, OF1.0
// misses); account_fast_path_hits folds kernel hits into flow/table counters.
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
                                                         {Action::output(of::port::kFlood)},
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
