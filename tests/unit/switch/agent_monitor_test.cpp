// The switch's flow monitoring (OpenFlow 1.4 OFPMP_FLOW_MONITOR) over two
// loopback controllers at 1.4: c1 watches, c2 changes flows. INITIAL flows in
// the reply; adds, modifies, deletes (with their reason), expiries, group
// deletes and bundle commits of the other connection in full; the watcher's
// own changes abbreviated (one ABBREV with the request's xid) or in full with
// NO_ABBREV; ONLY_OWN, table, out_port and match filters; eviction; DELETE of
// a monitor; each error with its OFPET_FLOW_MONITOR_FAILED code.
#include "openflow/codec.h"
#include "openflow/of13/bundle.h"
#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

using of::FlowUpdateEvent;
using of::MsgType;
namespace fmf = of::flow_monitor;

constexpr uint16_t kWatchAll = fmf::kInitial | fmf::kAdd | fmf::kRemoved | fmf::kModify | fmf::kInstructions;

struct MonitorTest : ::testing::Test {
  TestController c1{{of::kOf14}}, c2{{of::kOf14}};
  std::unique_ptr<SwitchFixture> fx;
  void SetUp() override {
    SwitchOptions o = options_with_controller(c1.port());
    o.controllers.push_back(options_with_controller(c2.port()).controllers[0]);
    fx = std::make_unique<SwitchFixture>(o, 3);
    ASSERT_TRUE(c1.wait_ready());
    ASSERT_TRUE(c2.wait_ready());
  }
  void TearDown() override {
    if (fx && fx->sw) fx->sw->stop();
  }
  static of::FlowMonitorRequest watch(uint32_t id, uint16_t flags) {
    of::FlowMonitorRequest r;
    r.monitor_id = id;
    r.flags = flags;
    return r;
  }
  // Sends a monitor request from c1; the reply (or error) to it.
  std::optional<of::Message> monitor(const of::FlowMonitorRequest& r) {
    return c1.wait_xid(c1.send(of::MultipartRequest{0, r}));
  }
  static std::vector<of::FlowUpdate> updates_of(const std::optional<of::Message>& m) {
    if (!m || !m->is<of::MultipartReply>()) return {};
    const auto* r = std::get_if<of::FlowMonitorReply>(&m->as<of::MultipartReply>().body);
    return r ? r->updates : std::vector<of::FlowUpdate>{};
  }
  // The next unsolicited flow monitor reply c1 gets (the replies to its requests were taken by their xid).
  std::vector<of::FlowUpdate> next_updates(std::chrono::milliseconds t = 3s) {
    auto m = c1.wait_for(MsgType::kMultipartReply, t);
    EXPECT_TRUE(m.has_value()) << "no flow update came";
    return updates_of(m);
  }
  // c2 changes a flow and waits for it to be applied (barrier).
  void change(const of::FlowMod& fm) {
    c2.send(fm);
    ASSERT_TRUE(c2.wait_xid(c2.send(of::BarrierRequest{})));
  }
  uint16_t monitor_error(const of::FlowMonitorRequest& r) {
    auto m = monitor(r);
    EXPECT_TRUE(m && m->is<of::ErrorMsg>()) << "no error";
    if (!m || !m->is<of::ErrorMsg>()) return 0xffff;
    EXPECT_EQ(m->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kFlowMonitorFailed));
    EXPECT_EQ(m->version, of::kOf14);
    return m->as<of::ErrorMsg>().code;
  }
};

TEST_F(MonitorTest, InitialThenOtherConnectionsChangesInFull) {
  of::FlowMod f1 = flow(1, {of::Action::output(2)}, 5);
  change(f1);
  auto init = updates_of(monitor(watch(1, kWatchAll)));
  ASSERT_EQ(init.size(), 1u);
  EXPECT_EQ(init[0].event, FlowUpdateEvent::kInitial);
  EXPECT_EQ(init[0].priority, 5);
  EXPECT_EQ(init[0].match, f1.match);
  EXPECT_EQ(init[0].instructions, f1.instructions);

  of::FlowMod f2 = flow(2, {of::Action::output(1)}, 7);
  f2.cookie = 0x12;
  f2.idle_timeout = 30;
  f2.hard_timeout = 60;
  change(f2);
  auto add = next_updates();
  ASSERT_EQ(add.size(), 1u);
  EXPECT_EQ(add[0].event, FlowUpdateEvent::kAdded);
  EXPECT_EQ(add[0].cookie, 0x12u);
  EXPECT_EQ(add[0].idle_timeout, 30);
  EXPECT_EQ(add[0].hard_timeout, 60);
  EXPECT_EQ(add[0].priority, 7);
  EXPECT_EQ(add[0].match, f2.match);
  EXPECT_EQ(add[0].instructions, f2.instructions);

  of::FlowMod mod = f2;
  mod.command = of::FlowModCommand::kModifyStrict;
  mod.instructions = {of::Instruction::apply({of::Action::output(3)})};
  change(mod);
  auto m = next_updates();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].event, FlowUpdateEvent::kModified);
  EXPECT_EQ(m[0].instructions, mod.instructions);

  of::FlowMod del;
  del.command = of::FlowModCommand::kDelete;
  del.table_id = of::table::kAll;
  change(del);
  auto d = next_updates();
  ASSERT_EQ(d.size(), 2u);  // both flows, one reply
  for (const auto& u : d) {
    EXPECT_EQ(u.event, FlowUpdateEvent::kRemoved);
    EXPECT_EQ(u.reason, uint8_t(of::FlowRemovedReason::kDelete));
    EXPECT_TRUE(u.instructions.empty()) << "a removal carries no instructions (1.4 7.3.5.19)";
  }
  EXPECT_EQ(c2.count(MsgType::kMultipartReply), 0u) << "the connection without a monitor got updates";
}

TEST_F(MonitorTest, OwnChangesAreAbbreviatedUnlessNoAbbrev) {
  ASSERT_TRUE(updates_of(monitor(watch(1, kWatchAll))).empty());
  // Two flows in one flow-mod's effect (a delete of both): one ABBREV naming the request.
  c1.send(flow(1, {of::Action::output(2)}, 5));
  auto a1 = next_updates();
  ASSERT_EQ(a1.size(), 1u);
  EXPECT_EQ(a1[0].event, FlowUpdateEvent::kAbbrev);
  c1.send(flow(2, {of::Action::output(1)}, 5));
  next_updates();
  of::FlowMod del;
  del.command = of::FlowModCommand::kDelete;
  const uint32_t xid = c1.send(del);
  auto a2 = next_updates();
  ASSERT_EQ(a2.size(), 1u);
  EXPECT_EQ(a2[0].event, FlowUpdateEvent::kAbbrev);
  EXPECT_EQ(a2[0].xid, xid);

  // With NO_ABBREV on a second monitor that also selects the flow: in full.
  ASSERT_TRUE(monitor(watch(2, fmf::kAdd | fmf::kNoAbbrev)));
  c1.send(flow(3, {of::Action::output(1)}, 9));
  auto full = next_updates();
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0].event, FlowUpdateEvent::kAdded);
  EXPECT_EQ(full[0].priority, 9);
  // One update per change and connection: instructions because monitor 1 (which selects it too) asks for
  // them.
  EXPECT_EQ(full[0].instructions, flow(3, {of::Action::output(1)}).instructions);
}

TEST_F(MonitorTest, OnlyOwnIgnoresOtherConnections) {
  ASSERT_TRUE(monitor(watch(1, fmf::kAdd | fmf::kOnlyOwn | fmf::kNoAbbrev)));
  change(flow(1, {of::Action::output(2)}));
  EXPECT_FALSE(c1.wait_for(MsgType::kMultipartReply, 300ms).has_value())
      << "ONLY_OWN reported another connection's add";
  c1.send(flow(2, {of::Action::output(1)}));
  auto own = next_updates();
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].event, FlowUpdateEvent::kAdded);
}

TEST_F(MonitorTest, TableOutPortAndMatchSelect) {
  of::FlowMonitorRequest r = watch(1, fmf::kAdd | fmf::kRemoved);
  r.table_id = 1;
  r.out_port = 3;
  r.match.add(of::OxmField::basic(of::OxmId::kInPort, 2));
  ASSERT_TRUE(monitor(r));
  change(flow(2, {of::Action::output(3)}));  // table 0: not watched
  of::FlowMod t1 = flow(1, {of::Action::output(3)});
  t1.table_id = 1;
  change(t1);  // in_port 1: not covered by the match
  of::FlowMod t1b = flow(2, {of::Action::output(1)});
  t1b.table_id = 1;
  change(t1b);  // does not output to 3
  of::FlowMod hit = flow(2, {of::Action::output(3)}, 50);
  hit.table_id = 1;
  change(hit);
  auto u = next_updates();
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].priority, 50);
  EXPECT_EQ(u[0].table_id, 1);
  EXPECT_FALSE(c1.wait_for(MsgType::kMultipartReply, 200ms).has_value());
}

TEST_F(MonitorTest, ExpiryGroupDeleteAndBundleCommitAreReported) {
  ASSERT_TRUE(monitor(watch(1, fmf::kAdd | fmf::kRemoved)));
  of::FlowMod idle = flow(1, {of::Action::output(2)});
  idle.hard_timeout = 1;
  change(idle);
  next_updates();  // its add
  auto exp = next_updates(4s);
  ASSERT_EQ(exp.size(), 1u);
  EXPECT_EQ(exp[0].event, FlowUpdateEvent::kRemoved);
  EXPECT_EQ(exp[0].reason, uint8_t(of::FlowRemovedReason::kHardTimeout));

  of::GroupMod gm;
  gm.group_id = 4;
  gm.buckets = {of::Bucket{0, of::port::kAny, of::group::kAny, {of::Action::output(2)}}};
  c2.send(gm);
  change(flow(2, {of::Action::group(4)}));
  next_updates();
  gm.command = of::GroupModCommand::kDelete;
  c2.send(gm);
  auto gd = next_updates();
  ASSERT_EQ(gd.size(), 1u);
  EXPECT_EQ(gd[0].reason, uint8_t(of::FlowRemovedReason::kGroupDelete));

  // A failed bundle reports nothing; a committed one its adds.
  auto bundle = [&](uint32_t base, std::vector<of::FlowMod> mods) {
    c2.send_xid(base, of::encode_bundle_control({9, of::BundleCtrlType::kOpenRequest, 1, {}}));
    for (size_t i = 0; i < mods.size(); ++i) {
      auto inner = of::encode_message(of::make_message(of::kOf14, base + 1 + uint32_t(i), mods[i]));
      ASSERT_TRUE(inner.ok());
      c2.send_xid(base + 1 + uint32_t(i), of::encode_bundle_add({9, 1, *inner, {}}));
    }
    c2.send_xid(base + 50, of::encode_bundle_control({9, of::BundleCtrlType::kCommitRequest, 1, {}}));
    ASSERT_TRUE(c2.wait_xid(base + 50));
  };
  bundle(100, {flow(3, {of::Action::output(1)}), flow(4, {of::Action::group(77)})});  // no group 77
  EXPECT_FALSE(c1.wait_for(MsgType::kMultipartReply, 300ms).has_value())
      << "a failed bundle's add was reported";
  bundle(200, {flow(3, {of::Action::output(1)}), flow(1, {of::Action::output(3)})});
  auto b = next_updates();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].event, FlowUpdateEvent::kAdded);
  EXPECT_EQ(b[1].event, FlowUpdateEvent::kAdded);
}

// A full table with eviction on: the add that evicts reports the evicted flow
// (REMOVED, reason EVICTION) before the flow it added.
TEST(AgentMonitorEviction, EvictionIsAReportedRemoval) {
  TestController c1{{of::kOf14}}, c2{{of::kOf14}};
  SwitchOptions o = options_with_controller(c1.port());
  o.controllers.push_back(options_with_controller(c2.port()).controllers[0]);
  o.table_size = 2;
  SwitchFixture fx(o, 2);
  ASSERT_TRUE(c1.wait_ready());
  ASSERT_TRUE(c2.wait_ready());
  of::FlowMonitorRequest r;
  r.flags = fmf::kAdd | fmf::kRemoved;
  ASSERT_TRUE(c1.wait_xid(c1.send(of::MultipartRequest{0, r})));
  c2.send(of::TableMod{0, of::table_config::kEviction, {}, {}});
  for (uint16_t i = 1; i <= 3; ++i) {
    of::FlowMod fm = flow(i, {of::Action::output(2)}, uint16_t(10 * i));
    fm.importance = i;
    c2.send(fm);
  }
  ASSERT_TRUE(c2.wait_xid(c2.send(of::BarrierRequest{})));
  std::vector<of::FlowUpdate> got;
  for (int i = 0; i < 3 && got.size() < 4; ++i) {
    auto m = c1.wait_for(MsgType::kMultipartReply, 3s);
    if (!m) break;
    for (auto& u : std::get<of::FlowMonitorReply>(m->as<of::MultipartReply>().body).updates) got.push_back(u);
  }
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[2].event, FlowUpdateEvent::kRemoved);
  EXPECT_EQ(got[2].reason, uint8_t(of::FlowRemovedReason::kEviction));
  EXPECT_EQ(got[2].priority, 10);  // importance 1: the one evicted
  EXPECT_EQ(got[3].event, FlowUpdateEvent::kAdded);
  EXPECT_EQ(got[3].priority, 30);
  if (fx.sw) fx.sw->stop();
}

TEST_F(MonitorTest, DeleteStopsAMonitorAndErrorsHaveTheirCodes) {
  ASSERT_TRUE(monitor(watch(1, fmf::kAdd)));
  using C = of::FlowMonitorFailedCode;
  EXPECT_EQ(monitor_error(watch(1, fmf::kAdd)), uint16_t(C::kMonitorExists));
  of::FlowMonitorRequest r = watch(2, fmf::kAdd);
  r.command = of::FlowMonitorCommand::kModify;
  EXPECT_EQ(monitor_error(r), uint16_t(C::kUnknownMonitor));
  r.command = of::FlowMonitorCommand(3);
  EXPECT_EQ(monitor_error(r), uint16_t(C::kBadCommand));
  EXPECT_EQ(monitor_error(watch(3, 0x80)), uint16_t(C::kBadFlags));
  r = watch(4, fmf::kAdd);
  r.table_id = 200;
  EXPECT_EQ(monitor_error(r), uint16_t(C::kBadTableId));
  r = watch(5, fmf::kAdd);
  r.out_port = 99;
  EXPECT_EQ(monitor_error(r), uint16_t(C::kBadOut));
  r = watch(6, fmf::kAdd);
  r.match.add(of::OxmField::basic(of::OxmId::kTcpDst, 80));  // no ip_proto: a bad prerequisite
  auto bad = monitor(r);
  ASSERT_TRUE(bad && bad->is<of::ErrorMsg>());
  EXPECT_EQ(bad->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kBadMatch));

  r = watch(1, 0);
  r.command = of::FlowMonitorCommand::kDelete;
  auto gone = monitor(r);
  ASSERT_TRUE(gone && gone->is<of::MultipartReply>());
  change(flow(1, {of::Action::output(2)}));
  EXPECT_FALSE(c1.wait_for(MsgType::kMultipartReply, 300ms).has_value())
      << "a deleted monitor still reported";
  EXPECT_EQ(monitor_error(r), uint16_t(C::kUnknownMonitor));
}

}  // namespace
}  // namespace flowlab::sw::testing
