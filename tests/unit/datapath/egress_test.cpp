// OpenFlow 1.5 egress tables in the pipeline: a packet an ingress table
// outputs runs through the egress tables first, once per output port, with
// actset_output = that port; the egress rules flow-mods are checked against;
// packet-in from an egress table; the kernel fast path leaves such packets to
// user space; table features say which table is the first egress table.
#include <gtest/gtest.h>

#include <algorithm>

#include "datapath/fast_path_decision.h"
#include "packet/headers.h"
#include "test_support.h"

namespace flowlab::dp::testing {
namespace {

using of::Action;
using of::Instruction;
using of::OxmId;

of::FlowMod flow(uint8_t table, uint16_t prio, of::Match m, of::InstructionList insts) {
  of::FlowMod fm = add_flow(table, prio, std::move(m), {});
  fm.instructions = std::move(insts);
  return fm;
}

of::Match actset(uint32_t port) {
  of::Match m;
  m.add(f(OxmId::kActsetOutput, port));
  return m;
}

of::Match in_port(uint32_t port) {
  of::Match m;
  m.add(f(OxmId::kInPort, port));
  return m;
}

uint64_t mac_at(const Bytes& frame, size_t off) {
  uint64_t v = 0;
  for (size_t i = 0; i < 6; ++i) v = v << 8 | frame.at(off + i);
  return v;
}

of::OfError flow_error(Rig& r, const of::FlowMod& fm) {
  auto res = r.dp.flow_mod(fm, r.now);
  EXPECT_FALSE(res.ok());
  return res.ok() ? of::OfError{} : res.error();
}

uint64_t packets_of(Rig& r, uint8_t table, uint16_t prio) {
  of::FlowStatsRequest req;
  req.table_id = table;
  auto reply = r.dp.flow_stats(req, r.now);
  EXPECT_TRUE(reply.ok());
  for (const of::FlowStats& s : reply->stats)
    if (s.priority == prio) return s.packet_count;
  ADD_FAILURE() << "no flow of priority " << prio << " in table " << int(table);
  return 0;
}

TEST(Egress, PacketLeavesThroughTheEgressTableOfItsPort) {
  Rig r;
  ASSERT_TRUE(r.dp.set_first_egress(2).ok());
  EXPECT_EQ(r.dp.first_egress(), 2);
  // Ingress: port 1's packets to port 2 (action set), port 3's to port 4.
  r.add(flow(0, 10, in_port(1), {Instruction::write({Action::output(2)})}));
  r.add(flow(0, 10, in_port(3), {Instruction::write({Action::output(4)})}));
  // Egress: what leaves by port 2 gets a new destination MAC; table 3 counts it.
  r.add(flow(2, 20, actset(2),
             {Instruction::apply({Action::set_field(f(OxmId::kEthDst, 0x0a00000000ee))}),
              Instruction::goto_table(3)}));
  r.add(flow(2, 0, {}, {}));  // anything else leaves unchanged
  r.add(flow(3, 5, actset(2), {}));
  r.send(tcp_frame(), 1);
  r.send(tcp_frame(), 3);
  ASSERT_EQ(r.out.ports(), (std::vector<uint32_t>{2, 4}));
  EXPECT_EQ(mac_at(r.out.sent[0].data, 0), 0x0a00000000eeu);
  EXPECT_NE(mac_at(r.out.sent[1].data, 0), 0x0a00000000eeu);
  EXPECT_EQ(packets_of(r, 2, 20), 1u);
  EXPECT_EQ(packets_of(r, 2, 0), 1u);
  EXPECT_EQ(packets_of(r, 3, 5), 1u);

  // Without egress tables the same ingress flows send the frame out untouched.
  ASSERT_TRUE(r.dp.flow_mod(of::FlowMod{.table_id = of::table::kAll,
                                        .command = of::FlowModCommand::kDelete,
                                        .out_port = of::port::kAny,
                                        .out_group = of::group::kAny},
                            r.now)
                  .ok());
  ASSERT_TRUE(r.dp.set_first_egress(0).ok());
  r.add(flow(0, 10, in_port(1), {Instruction::write({Action::output(2)})}));
  r.send(tcp_frame(), 1);
  ASSERT_EQ(r.out.sent.size(), 3u);
  EXPECT_EQ(r.out.sent[2].port, 2u);
  EXPECT_NE(mac_at(r.out.sent[2].data, 0), 0x0a00000000eeu);
}

TEST(Egress, FloodRunsEgressOncePerPortOnItsOwnCopy) {
  Rig r;
  ASSERT_TRUE(r.dp.set_first_egress(1).ok());
  r.add(flow(0, 10, in_port(1), {Instruction::apply({Action::output(of::port::kFlood)})}));
  r.add(flow(1, 30, actset(3), {Instruction::clear()}));  // port 3: dropped
  r.add(flow(1, 20, actset(2), {Instruction::apply({Action::set_field(f(OxmId::kEthSrc, 0x0200000000aa))})}));
  r.add(flow(1, 0, {}, {}));
  r.send(tcp_frame(), 1);
  ASSERT_EQ(r.out.ports(), (std::vector<uint32_t>{2, 4}));
  EXPECT_EQ(mac_at(r.out.sent[0].data, 6), 0x0200000000aau);
  EXPECT_NE(mac_at(r.out.sent[1].data, 6), 0x0200000000aau);  // port 2's change stays its own
}

TEST(Egress, EgressTableMissDropsAndControllerOutputReportsTheEgressTable) {
  Rig r;
  ASSERT_TRUE(r.dp.set_first_egress(4).ok());
  r.add(flow(0, 10, in_port(1), {Instruction::write({Action::output(2)})}));
  r.send(tcp_frame(), 1);  // table 4 is empty: the egress table miss drops it
  EXPECT_TRUE(r.out.sent.empty());
  r.add(flow(4, 1, actset(2), {Instruction::apply({Action::output(of::port::kController, 0xffff)})}));
  r.send(tcp_frame(), 1);
  ASSERT_EQ(r.ctl.ins.size(), 1u);
  EXPECT_EQ(r.ctl.ins[0].info.table_id, 4);
  EXPECT_EQ(r.ctl.ins[0].info.reason, of::PacketInReason::kAction);
  EXPECT_EQ(r.out.ports(), (std::vector<uint32_t>{2}));  // a copy went up; the action set's output still ran
}

TEST(Egress, ActsetOutputFollowsTheActionSetInIngressTables) {
  Rig r;  // no egress tables: actset_output is matched as the set has it
  r.add(flow(0, 10, in_port(1), {Instruction::write({Action::output(2)}), Instruction::goto_table(1)}));
  r.add(flow(0, 10, in_port(3), {Instruction::goto_table(1)}));
  r.add(flow(1, 20, actset(2), {Instruction::apply({Action::output(4)})}));
  r.add(flow(1, 10, actset(of::port::kUnset), {Instruction::write({Action::output(1)})}));
  r.send(tcp_frame(), 1);
  r.send(tcp_frame(), 3);
  EXPECT_EQ(r.out.ports(), (std::vector<uint32_t>{4, 2, 1}));
}

TEST(Egress, FlowModsFollowTheEgressRules) {
  Rig r;
  ASSERT_TRUE(r.dp.set_first_egress(2).ok());
  of::OfError e = flow_error(r, flow(0, 1, {}, {Instruction::goto_table(2)}));
  EXPECT_EQ(e.type, of::ErrorType::kBadInstruction);
  EXPECT_EQ(e.code, uint16_t(of::BadInstructionCode::kBadTableId));
  e = flow_error(r, flow(1, 1, {}, {Instruction::goto_table(3)}));
  EXPECT_EQ(e.code, uint16_t(of::BadInstructionCode::kBadTableId));
  e = flow_error(r, flow(2, 1, {}, {Instruction::write({Action::output(3)})}));
  EXPECT_EQ(e.type, of::ErrorType::kBadAction);
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kBadOutPort));
  ASSERT_TRUE(r.dp.group_mod(of::GroupMod{.command = of::GroupModCommand::kAdd,
                                          .type = of::GroupType::kAll,
                                          .group_id = 7,
                                          .buckets = {of::Bucket{.actions = {Action::output(3)}}}},
                             r.now)
                  .ok());
  e = flow_error(r, flow(3, 1, {}, {Instruction::apply({Action::group(7)})}));
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kBadOutGroup));
  e = flow_error(r, flow(3, 1, {}, {Instruction::write({Action::group(7)})}));
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kBadOutGroup));
  // Allowed: goto forward within egress, an apply-actions output, groups in ingress.
  r.add(flow(2, 1, {}, {Instruction::goto_table(3)}));
  r.add(flow(3, 1, {}, {Instruction::apply({Action::output(4)})}));
  r.add(flow(0, 1, {}, {Instruction::write({Action::group(7)}), Instruction::goto_table(1)}));

  // Moving the boundary over tables with flows, or under an ingress goto, is refused.
  auto st = r.dp.set_first_egress(3);  // table 2 (flows) would become ingress
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().type, of::ErrorType::kTableFeaturesFailed);
  EXPECT_EQ(st.error().code, uint16_t(of::TableFeaturesFailedCode::kEperm));
  st = r.dp.set_first_egress(1);  // table 0's goto 1 would lead into egress
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, uint16_t(of::TableFeaturesFailedCode::kEperm));
  st = r.dp.set_first_egress(250);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, uint16_t(of::TableFeaturesFailedCode::kBadTable));
  EXPECT_EQ(r.dp.first_egress(), 2);
}

TEST(Egress, GroupBucketsOfTheActionSetRunEgressPerBucket) {
  Rig r;
  ASSERT_TRUE(r.dp.set_first_egress(1).ok());
  ASSERT_TRUE(r.dp.group_mod(of::GroupMod{.command = of::GroupModCommand::kAdd,
                                          .type = of::GroupType::kAll,
                                          .group_id = 1,
                                          .buckets = {of::Bucket{.actions = {Action::output(2)}},
                                                      of::Bucket{.actions = {Action::output(3)}}}},
                             r.now)
                  .ok());
  r.add(flow(0, 10, in_port(1), {Instruction::write({Action::group(1)})}));
  r.add(flow(1, 10, actset(3), {Instruction::apply({Action::set_field(f(OxmId::kEthDst, 0x0a0000000033))})}));
  r.add(flow(1, 0, {}, {}));
  r.send(tcp_frame(), 1);
  ASSERT_EQ(r.out.ports(), (std::vector<uint32_t>{2, 3}));
  EXPECT_NE(mac_at(r.out.sent[0].data, 0), 0x0a0000000033u);
  EXPECT_EQ(mac_at(r.out.sent[1].data, 0), 0x0a0000000033u);
}

TEST(Egress, KernelFastPathLeavesEgressAndActsetOutputToUserSpace) {
  auto all_ports = [](uint32_t p) { return p >= 1 && p <= 4; };
  auto decide = [&](Rig& r) {
    const Bytes frame = tcp_frame();
    r.send(frame, 1);
    FlowKey k;
    PacketLayers l;
    extract_flow_key(frame.data(), frame.size(), 1, 0, 0, k, l);
    return decide_for_fast_path(r.ctx, k, all_ports);
  };
  Rig plain;
  plain.add(flow(0, 10, in_port(1), {Instruction::write({Action::output(2)})}));
  EXPECT_TRUE(decide(plain).has_value());  // the same flow without egress tables: kernel
  Rig egress;
  ASSERT_TRUE(egress.dp.set_first_egress(1).ok());
  egress.add(flow(0, 10, in_port(1), {Instruction::write({Action::output(2)})}));
  egress.add(flow(1, 0, {}, {}));
  EXPECT_FALSE(decide(egress).has_value());
  EXPECT_EQ(egress.out.ports(), (std::vector<uint32_t>{2}));
  Rig drop;  // egress tables set, but the packet is dropped in ingress: the kernel may drop it
  ASSERT_TRUE(drop.dp.set_first_egress(1).ok());
  drop.add(flow(0, 10, in_port(1), {}));
  EXPECT_TRUE(decide(drop).has_value());
  Rig reads;  // a table that matches actset_output
  reads.add(flow(0, 10, in_port(1), {Instruction::write({Action::output(2)}), Instruction::goto_table(1)}));
  reads.add(flow(1, 10, actset(2), {}));
  EXPECT_FALSE(decide(reads).has_value());
}

TEST(Egress, TableFeaturesNameTheFirstEgressTable) {
  Rig r;
  auto features = [&](uint8_t t) { return r.dp.table_features().tables.at(t); };
  using namespace of::table_features;
  EXPECT_EQ(features(0).features, kIngressTable);
  EXPECT_EQ(features(2).features, kIngressTable | kEgressTable);
  ASSERT_TRUE(r.dp.set_first_egress(2).ok());
  EXPECT_EQ(features(2).features, kIngressTable | kEgressTable | kFirstEgress);
  EXPECT_EQ(features(3).features, kIngressTable | kEgressTable);
  auto prop = [](const of::TableFeatures& t, of::TableFeaturePropType type) {
    for (const auto& p : t.properties)
      if (p.type == type) return p.ids;
    return std::vector<uint32_t>{};
  };
  using P = of::TableFeaturePropType;
  EXPECT_EQ(prop(features(0), P::kNextTables), (std::vector<uint32_t>{1}));
  EXPECT_TRUE(prop(features(1), P::kNextTables).empty());
  EXPECT_EQ(prop(features(2), P::kNextTables).front(), 3u);
  const auto w = prop(features(2), P::kWriteActions);
  EXPECT_EQ(std::count(w.begin(), w.end(), uint32_t(of::ActionType::kOutput)), 0);
  const auto w0 = prop(features(0), P::kWriteActions);
  EXPECT_EQ(std::count(w0.begin(), w0.end(), uint32_t(of::ActionType::kOutput)), 1);
  const auto m = prop(features(0), P::kMatch);
  EXPECT_EQ(std::count_if(m.begin(), m.end(), [](uint32_t h) { return (h >> 9 & 0x7f) == 43; }), 1);
}

}  // namespace
}  // namespace flowlab::dp::testing
