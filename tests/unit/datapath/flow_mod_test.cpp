// Flow-mod commands, filters, errors, timeouts and flow-removed events.
#include <gtest/gtest.h>

#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::OxmId;

of::OfError mod_error(Rig& r, const of::FlowMod& fm) {
  auto res = r.dp.flow_mod(fm, r.now);
  EXPECT_FALSE(res.ok());
  return res.ok() ? of::OfError{} : res.error();
}

TEST(FlowMod, AddForwardsAndReplacesIdentical) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)}));
  r.send(tcp_frame());
  ASSERT_EQ(r.out.ports(), std::vector<uint32_t>{2});
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(3)}));
  EXPECT_EQ(r.dp.flow_count(), 1u);
  r.send(tcp_frame());
  EXPECT_EQ(r.out.sent.back().port, 3u);
}

TEST(FlowMod, PriorityWins) {
  Rig r;
  r.add(add_flow(0, 10, {}, {of::Action::output(2)}));
  r.add(add_flow(0, 20, match_ip_dst("10.0.0.2"), {of::Action::output(3)}));
  r.send(tcp_frame());
  r.send(tcp_frame("10.0.0.1", "10.0.0.9"));
  EXPECT_EQ(r.out.ports(), (std::vector<uint32_t>{3, 2}));
}

TEST(FlowMod, TableMissDropsWithoutMissFlow) {
  Rig r;
  r.send(tcp_frame());
  EXPECT_TRUE(r.out.sent.empty());
  EXPECT_TRUE(r.ctl.ins.empty());
  EXPECT_EQ(r.dp.counters().table_miss_drops, 1u);
  // Table-miss flow to the controller: reason no-match, cookie of the flow.
  auto miss = add_flow(0, 0, {}, {of::Action::output(of::port::kController, 0xffff)});
  miss.cookie = 0x77;
  r.add(miss);
  r.send(tcp_frame(), 3);
  ASSERT_EQ(r.ctl.ins.size(), 1u);
  EXPECT_EQ(r.ctl.ins[0].info.reason, of::PacketInReason::kNoMatch);
  EXPECT_EQ(r.ctl.ins[0].info.cookie, 0x77u);
  EXPECT_EQ(r.ctl.ins[0].info.in_port, 3u);
  EXPECT_EQ(r.ctl.ins[0].data, tcp_frame());
  of::Match m = r.ctl.ins[0].info.match();
  ASSERT_NE(m.find(OxmId::kInPort), nullptr);
  EXPECT_EQ(m.find(OxmId::kInPort)->value_u64(), 3u);
}

TEST(FlowMod, Of10MissGoesToControllerWithMissSendLen) {
  DatapathConfig cfg;
  cfg.of10 = true;
  Rig r(cfg);
  EXPECT_EQ(r.dp.n_tables(), 1);
  r.dp.set_switch_config({0, 64});
  r.send(tcp_frame());
  ASSERT_EQ(r.ctl.ins.size(), 1u);
  EXPECT_EQ(r.ctl.ins[0].info.max_len, 64);
  EXPECT_EQ(r.ctl.ins[0].info.reason, of::PacketInReason::kNoMatch);
}

TEST(FlowMod, ModifyKeepsCountersUnlessReset) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)}));
  r.send(tcp_frame());
  of::FlowMod mod = add_flow(0, 0, {}, {of::Action::output(4)});
  mod.command = of::FlowModCommand::kModify;
  r.add(mod);
  r.send(tcp_frame());
  EXPECT_EQ(r.out.sent.back().port, 4u);
  auto st = r.dp.flow_stats({}, r.now);
  ASSERT_TRUE(st.ok());
  ASSERT_EQ(st->stats.size(), 1u);
  EXPECT_EQ(st->stats[0].packet_count, 2u);
  EXPECT_EQ(st->stats[0].priority, 10);
  mod.flags = of::flow_mod_flags::kResetCounts;
  r.add(mod);
  EXPECT_EQ(r.dp.flow_stats({}, r.now)->stats[0].packet_count, 0u);
}

TEST(FlowMod, ModifyStrictNeedsExactMatchAndPriority) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)}));
  of::FlowMod mod = add_flow(0, 11, match_ip_dst("10.0.0.2"), {of::Action::output(4)});
  mod.command = of::FlowModCommand::kModifyStrict;
  r.add(mod);  // wrong priority: nothing changes (OF1.3: no error, no add)
  EXPECT_EQ(r.dp.flow_count(), 1u);
  r.send(tcp_frame());
  EXPECT_EQ(r.out.sent.back().port, 2u);
  mod.priority = 10;
  r.add(mod);
  r.send(tcp_frame());
  EXPECT_EQ(r.out.sent.back().port, 4u);
}

TEST(FlowMod, DeleteFiltersByMatchCookieOutPortAndSendsFlowRemoved) {
  Rig r;
  auto a = add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)});
  a.cookie = 0x100;
  a.flags = of::flow_mod_flags::kSendFlowRem;
  auto b = add_flow(0, 10, match_ip_dst("10.0.0.3"), {of::Action::output(3)});
  b.cookie = 0x200;
  auto c = add_flow(1, 5, {}, {of::Action::output(2)});
  c.cookie = 0x100;
  r.add(a);
  r.add(b);
  r.add(c);
  of::FlowMod del;
  del.command = of::FlowModCommand::kDelete;
  del.table_id = of::table::kAll;
  del.cookie = 0x100;
  del.cookie_mask = 0xf00;
  del.out_port = 2;
  of::Match ipm;
  ipm.add(f(OxmId::kEthType, 0x0800));
  del.match = ipm;  // only flows at least as specific as eth_type=0x800
  auto res = r.dp.flow_mod(del, r.now + 2'500'000'000);
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->size(), 1u);  // a (c is not covered by the eth_type filter; b has the wrong cookie)
  EXPECT_EQ((*res)[0].cookie, 0x100u);
  EXPECT_EQ((*res)[0].reason, uint8_t(of::FlowRemovedReason::kDelete));
  EXPECT_EQ((*res)[0].duration_sec, 2u);
  EXPECT_EQ(r.dp.flow_count(), 2u);
  // Delete-strict by exact match and priority.
  of::FlowMod ds;
  ds.command = of::FlowModCommand::kDeleteStrict;
  ds.table_id = 1;
  ds.priority = 5;
  ASSERT_TRUE(r.dp.flow_mod(ds, r.now).ok());
  EXPECT_EQ(r.dp.flow_count(), 1u);
  // Delete everything.
  of::FlowMod all;
  all.command = of::FlowModCommand::kDelete;
  all.table_id = of::table::kAll;
  ASSERT_TRUE(r.dp.flow_mod(all, r.now).ok());
  EXPECT_EQ(r.dp.flow_count(), 0u);
}

TEST(FlowMod, OverlapCheck) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)}));
  of::Match m;
  m.add(f(OxmId::kEthType, 0x0800)).add(fm_(OxmId::kIpv4Dst, ip4("10.0.0.0").v, 0xffffff00));
  auto fm = add_flow(0, 10, m, {of::Action::output(3)});
  fm.flags = of::flow_mod_flags::kCheckOverlap;
  auto e = mod_error(r, fm);
  EXPECT_EQ(e.type, of::ErrorType::kFlowModFailed);
  EXPECT_EQ(e.code, uint16_t(of::FlowModFailedCode::kOverlap));
  fm.priority = 11;  // different priority: no overlap
  r.add(fm);
  of::Match other;
  other.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpv4Dst, ip4("10.0.1.1").v));
  auto ok = add_flow(0, 11, other, {});
  ok.flags = of::flow_mod_flags::kCheckOverlap;
  r.add(ok);
}

TEST(FlowMod, Errors) {
  Rig r;
  auto bad_table = add_flow(64, 1, {}, {});
  EXPECT_EQ(mod_error(r, bad_table).code, uint16_t(of::FlowModFailedCode::kBadTableId));
  auto back = add_flow(3, 1, {}, {});
  back.instructions.push_back(of::Instruction::goto_table(2));
  auto e = mod_error(r, back);
  EXPECT_EQ(e.type, of::ErrorType::kBadInstruction);
  EXPECT_EQ(e.code, uint16_t(of::BadInstructionCode::kBadTableId));
  auto grp = add_flow(0, 1, {}, {of::Action::group(9)});
  e = mod_error(r, grp);
  EXPECT_EQ(e.type, of::ErrorType::kBadAction);
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kBadOutGroup));
  auto met = add_flow(0, 1, {}, {});
  met.instructions.push_back(of::Instruction::meter(5));
  e = mod_error(r, met);
  EXPECT_EQ(e.type, of::ErrorType::kMeterModFailed);
  EXPECT_EQ(e.code, uint16_t(of::MeterModFailedCode::kUnknownMeter));
  of::Match prereq;
  prereq.add(f(OxmId::kTcpDst, 80));
  e = mod_error(r, add_flow(0, 1, prereq, {}));
  EXPECT_EQ(e.type, of::ErrorType::kBadMatch);
  EXPECT_EQ(e.code, uint16_t(of::BadMatchCode::kBadPrereq));
  e = mod_error(r, add_flow(0, 1, {}, {of::Action::output(0)}));
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kBadOutPort));
  e = mod_error(r, add_flow(0, 1, {}, {of::Action::output(of::port::kTable)}));
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kBadOutPort));
  // set_field ipv4_dst without eth_type=0x0800 in the match
  e = mod_error(r, add_flow(0, 1, {}, {of::Action::set_field(f(OxmId::kIpv4Dst, 1))}));
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kMatchInconsistent));
  e = mod_error(r, add_flow(0, 1, {}, {of::Action::push_vlan(0x1234)}));
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kBadArgument));
  auto cmd = add_flow(0, 1, {}, {});
  cmd.command = static_cast<of::FlowModCommand>(9);
  EXPECT_EQ(mod_error(r, cmd).code, uint16_t(of::FlowModFailedCode::kBadCommand));
  EXPECT_EQ(r.dp.flow_count(), 0u);
}

TEST(FlowMod, IdleAndHardTimeouts) {
  Rig r;
  auto idle = add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)});
  idle.idle_timeout = 5;
  idle.flags = of::flow_mod_flags::kSendFlowRem;
  auto hard = add_flow(0, 10, match_ip_dst("10.0.0.3"), {of::Action::output(2)});
  hard.hard_timeout = 8;
  hard.flags = of::flow_mod_flags::kSendFlowRem;
  auto quiet = add_flow(0, 10, match_ip_dst("10.0.0.4"), {of::Action::output(2)});
  quiet.hard_timeout = 1;  // no SEND_FLOW_REM: removed silently
  r.add(idle);
  r.add(hard);
  r.add(quiet);
  const uint64_t s = 1'000'000'000;
  r.now += 4 * s;
  r.send(tcp_frame());  // keeps the idle flow alive
  r.send(tcp_frame("10.0.0.1", "10.0.0.3"));
  auto ev = r.dp.expire(r.now);
  EXPECT_TRUE(ev.empty());
  EXPECT_EQ(r.dp.flow_count(), 2u);
  ev = r.dp.expire(r.now + 4 * s);  // t=9s: hard (8s) expires; idle last used at 5s
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reason, uint8_t(of::FlowRemovedReason::kHardTimeout));
  EXPECT_EQ(ev[0].packet_count, 1u);
  ev = r.dp.expire(r.now + 5 * s);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reason, uint8_t(of::FlowRemovedReason::kIdleTimeout));
  EXPECT_EQ(ev[0].idle_timeout, 5);
  EXPECT_EQ(r.dp.flow_count(), 0u);
  r.send(tcp_frame());
  EXPECT_EQ(r.out.sent.size(), 2u);  // flow gone: dropped
}

TEST(FlowMod, StatsFiltersAndAggregate) {
  Rig r;
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)}));
  r.add(add_flow(1, 10, match_ip_dst("10.0.0.3"), {of::Action::output(3)}));
  r.send(tcp_frame());
  r.send(tcp_frame());
  of::FlowStatsRequest req;
  req.table_id = 0;
  auto st = r.dp.flow_stats(req, r.now);
  ASSERT_TRUE(st.ok());
  ASSERT_EQ(st->stats.size(), 1u);
  EXPECT_EQ(st->stats[0].byte_count, 2 * tcp_frame().size());
  req.table_id = of::table::kAll;
  req.out_port = 3;
  EXPECT_EQ(r.dp.flow_stats(req, r.now)->stats.size(), 1u);
  of::FlowStatsRequest agg;
  auto a = r.dp.aggregate_stats(agg);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->flow_count, 2u);
  EXPECT_EQ(a->packet_count, 2u);
  agg.table_id = 99;
  auto bad = r.dp.aggregate_stats(agg);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, uint16_t(of::BadRequestCode::kBadTableId));
  auto ts = r.dp.table_stats();
  ASSERT_EQ(ts.stats.size(), 64u);
  EXPECT_EQ(ts.stats[0].active_count, 1u);
  EXPECT_EQ(ts.stats[0].lookup_count, 2u);
  EXPECT_EQ(ts.stats[0].matched_count, 2u);
  EXPECT_EQ(ts.stats[1].lookup_count, 0u);
}

TEST(FlowMod, TableFeaturesDescribePipeline) {
  Rig r;
  auto tf = r.dp.table_features();
  ASSERT_EQ(tf.tables.size(), 64u);
  const auto& t0 = tf.tables[0];
  bool has_next = false, has_match = false;
  size_t n_fields = 0;
  for (int i = 0; i < of::kNumBasicOxm; ++i)
    n_fields += of::oxm_info(of::OxmId(i)) != nullptr;  // actset_output (OF1.5) included
  for (const auto& p : t0.properties) {
    if (p.type == of::TableFeaturePropType::kNextTables) has_next = p.ids.size() == 63 && p.ids[0] == 1;
    if (p.type == of::TableFeaturePropType::kMatch) has_match = p.ids.size() == n_fields;
  }
  EXPECT_TRUE(has_next);
  EXPECT_TRUE(has_match);
}

TEST(FlowMod, Of10ModifyOfNothingAdds) {
  DatapathConfig cfg;
  cfg.of10 = true;
  Rig r(cfg);
  auto mod = add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)});
  mod.command = of::FlowModCommand::kModify;
  r.add(mod);
  EXPECT_EQ(r.dp.flow_count(), 1u);
  Rig r13;
  r13.add(mod);
  EXPECT_EQ(r13.dp.flow_count(), 0u);  // OF1.3: modify of nothing is a no-op
}

TEST(FlowMod, Of10ReAddClearsCounters) {
  DatapathConfig cfg;
  cfg.of10 = true;
  Rig r(cfg);
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(2)}));
  r.send(tcp_frame());
  ASSERT_EQ(r.dp.flow_stats({}, r.now)->stats[0].packet_count, 1u);
  r.add(add_flow(0, 10, match_ip_dst("10.0.0.2"), {of::Action::output(3)}));
  EXPECT_EQ(r.dp.flow_count(), 1u);
  EXPECT_EQ(r.dp.flow_stats({}, r.now)->stats[0].packet_count, 0u);  // OF1.0: counters removed too
}

}  // namespace
}  // namespace flowlab::dp
