// The switch's agent at OpenFlow 1.4 over loopback controller connections that
// offer only version 5: importance kept and reported, set-async changing only
// the properties it carries, role status to a master another controller
// demoted, standard bundles (atomic: a failing one applies nothing) with
// OFPET_BUNDLE_FAILED errors, errors at version 5 for what it refuses.
#include "openflow/codec.h"
#include "openflow/of13/bundle.h"
#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

using of::MsgType;

struct Of14Test : ::testing::Test {
  TestController ctl{{of::kOf14}};
  std::unique_ptr<SwitchFixture> fx;
  void SetUp() override {
    fx = std::make_unique<SwitchFixture>(options_with_controller(ctl.port()), 2);
    ASSERT_TRUE(ctl.wait_ready()) << "switch never connected to the controller";
  }
  void TearDown() override {
    if (fx && fx->sw) fx->sw->stop();
  }
  std::vector<of::FlowStats> flows() {
    auto r = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::FlowStatsRequest{}}));
    EXPECT_TRUE(r && r->is<of::MultipartReply>());
    return r ? std::get<of::FlowStatsReply>(r->as<of::MultipartReply>().body).stats
             : std::vector<of::FlowStats>{};
  }
};

TEST_F(Of14Test, NegotiatesAndKeepsImportance) {
  EXPECT_EQ(ctl.version(), of::kOf14);
  auto f = ctl.wait_xid(ctl.send(of::FeaturesRequest{}));
  ASSERT_TRUE(f && f->is<of::FeaturesReply>());
  EXPECT_EQ(f->version, of::kOf14);
  EXPECT_EQ(f->as<of::FeaturesReply>().n_tables, 64);

  of::FlowMod fm = flow(1, {of::Action::output(2)});
  fm.importance = 9;
  ctl.send(fm);
  fm.command = of::FlowModCommand::kModifyStrict;  // a modify leaves the importance
  fm.importance = 0;
  fm.instructions = {of::Instruction::apply({of::Action::output(1)})};
  ctl.send(fm);
  auto fs = flows();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].importance, 9);
  EXPECT_EQ(fs[0].instructions[0].actions[0].port, 1u);

  auto pd = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::PortDescRequest{}}));
  ASSERT_TRUE(pd && pd->is<of::MultipartReply>());
  EXPECT_EQ(std::get<of::PortDescReply>(pd->as<of::MultipartReply>().body).ports.size(), 2u);
  auto ps = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::PortStatsRequest{}}));
  ASSERT_TRUE(ps && ps->is<of::MultipartReply>());
  EXPECT_EQ(std::get<of::PortStatsReply>(ps->as<of::MultipartReply>().body).stats.size(), 2u);
}

TEST_F(Of14Test, SetAsyncChangesOnlyItsProperties) {
  of::SetAsync sa;
  sa.present = 1u << 0;  // OFPACPT_PACKET_IN_SLAVE only
  sa.packet_in_mask = {0, 0x5};
  sa.port_status_mask = {0, 0};  // not present: must not apply
  ctl.send(sa);
  auto ga = ctl.wait_xid(ctl.send(of::GetAsyncRequest{}));
  ASSERT_TRUE(ga && ga->is<of::GetAsyncReply>());
  const auto& a = ga->as<of::GetAsyncReply>();
  EXPECT_EQ(a.packet_in_mask[1], 0x5u);
  EXPECT_EQ(a.packet_in_mask[0], 0x7u);  // the default, untouched
  EXPECT_EQ(a.port_status_mask[0], 0x7u);
  EXPECT_EQ(a.role_status_mask[0], 0x7u);
  EXPECT_EQ(a.table_status_mask[1], 0x18u);
}

TEST_F(Of14Test, StandardBundleIsAtomicAndErrorsAreBundleFailed) {
  auto control = [&](uint32_t xid, of::BundleCtrlType t) {
    ctl.send_xid(xid, of::encode_bundle_control({7, t, of::bundle_flags::kAtomic, {}}));
    return ctl.wait_xid(xid);
  };
  auto add = [&](uint32_t xid, of::FlowMod fm) {
    auto inner = of::encode_message(of::make_message(of::kOf14, xid, std::move(fm)));
    ASSERT_TRUE(inner.ok());
    ctl.send_xid(xid, of::encode_bundle_add({7, of::bundle_flags::kAtomic, *inner, {}}));
  };
  auto open = control(100, of::BundleCtrlType::kOpenRequest);
  ASSERT_TRUE(open && open->is<of::ExperimenterMsg>());
  EXPECT_EQ(of::decode_bundle_control(open->as<of::ExperimenterMsg>())->type, of::BundleCtrlType::kOpenReply);
  add(101, flow(1, {of::Action::output(2)}, 10));
  add(102, flow(2, {of::Action::group(77)}, 10));  // no group 77: the commit fails
  auto commit = control(103, of::BundleCtrlType::kCommitRequest);
  ASSERT_TRUE(commit && commit->is<of::ErrorMsg>());
  // OFPET_BUNDLE_FAILED / OFPBFC_MSG_FAILED, 1.4's standard error (not the ONF experimenter one).
  EXPECT_EQ(commit->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kBundleFailed));
  EXPECT_EQ(commit->as<of::ErrorMsg>().code, uint16_t(of::BundleFailedCode::kMsgFailed));
  EXPECT_TRUE(flows().empty()) << "a failed atomic bundle applied a flow";

  // A commit of a bundle never opened: OFPBFC_BAD_ID.
  auto bad = control(104, of::BundleCtrlType::kCommitRequest);
  ASSERT_TRUE(bad && bad->is<of::ErrorMsg>());
  EXPECT_EQ(bad->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kBundleFailed));
  EXPECT_EQ(bad->as<of::ErrorMsg>().code, uint16_t(of::BundleFailedCode::kBadId));

  control(105, of::BundleCtrlType::kOpenRequest);
  add(106, flow(1, {of::Action::output(2)}, 10));
  auto ok = control(107, of::BundleCtrlType::kCommitRequest);
  ASSERT_TRUE(ok && ok->is<of::ExperimenterMsg>());
  EXPECT_EQ(of::decode_bundle_control(ok->as<of::ExperimenterMsg>())->type, of::BundleCtrlType::kCommitReply);
  EXPECT_EQ(flows().size(), 1u);
}

TEST_F(Of14Test, UnsupportedPartsAnswerWithTheSpecsErrors) {
  // An experimenter message that is not a bundle: OFPBRC_BAD_EXPERIMENTER, at 1.4.
  ctl.send(of::ExperimenterMsg{});
  auto e = ctl.wait_for(MsgType::kError);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->version, of::kOf14);
  EXPECT_EQ(e->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kBadRequest));
  EXPECT_EQ(e->as<of::ErrorMsg>().code, uint16_t(of::BadRequestCode::kBadExperimenter));
  // Role status is a switch's message: a controller sending one gets OFPBRC_BAD_TYPE.
  auto rs = ctl.wait_xid(ctl.send(of::RoleStatus{}));
  ASSERT_TRUE(rs && rs->is<of::ErrorMsg>());
  EXPECT_EQ(rs->as<of::ErrorMsg>().code, uint16_t(of::BadRequestCode::kBadType));
}

// Two controllers at 1.4: when the second becomes master, the first (master
// until then) is told in a role status.
TEST(AgentOf14Roles, DemotedMasterGetsRoleStatus) {
  TestController c1{{of::kOf14}}, c2{{of::kOf14}};
  SwitchOptions o = options_with_controller(c1.port());
  o.controllers.push_back(options_with_controller(c2.port()).controllers[0]);
  SwitchFixture fx(o, 2);
  ASSERT_TRUE(c1.wait_ready());
  ASSERT_TRUE(c2.wait_ready());
  of::RoleRequest rq;
  rq.role = of::ControllerRole::kMaster;
  rq.generation_id = 1;
  auto r1 = c1.wait_xid(c1.send(rq));
  ASSERT_TRUE(r1 && r1->is<of::RoleReply>());
  rq.generation_id = 2;
  auto r2 = c2.wait_xid(c2.send(rq));
  ASSERT_TRUE(r2 && r2->is<of::RoleReply>());
  EXPECT_EQ(r2->as<of::RoleReply>().role, of::ControllerRole::kMaster);
  auto st = c1.wait_for(MsgType::kRoleStatus);
  ASSERT_TRUE(st.has_value()) << "the demoted master heard nothing";
  EXPECT_EQ(st->as<of::RoleStatus>().role, of::ControllerRole::kSlave);
  EXPECT_EQ(st->as<of::RoleStatus>().reason, of::RoleStatusReason::kMasterRequest);
  EXPECT_EQ(st->as<of::RoleStatus>().generation_id, 2u);
  EXPECT_EQ(c2.count(MsgType::kRoleStatus), 0u);
  if (fx.sw) fx.sw->stop();
}

// Request forward (OF1.4 7.4.5): c1, a slave at 1.4 that asked for group and
// meter mods in its set-async, gets each one c2 (a master at 1.3) had applied,
// as c2 sent it with version 5; nothing before it asked, nothing that failed,
// nothing to c2 itself.
TEST(AgentOf14Roles, SlaveGetsOtherControllersGroupAndMeterMods) {
  TestController c1{{of::kOf14}}, c2{{of::kOf13}};
  SwitchOptions o = options_with_controller(c1.port());
  o.controllers.push_back(options_with_controller(c2.port()).controllers[0]);
  SwitchFixture fx(o, 2);
  ASSERT_TRUE(c1.wait_ready());
  ASSERT_TRUE(c2.wait_ready());
  ASSERT_EQ(c2.version(), of::kOf13);
  of::RoleRequest rq;
  rq.role = of::ControllerRole::kSlave;
  rq.generation_id = 1;
  ASSERT_TRUE(c1.wait_xid(c1.send(rq)));
  rq.role = of::ControllerRole::kMaster;
  ASSERT_TRUE(c2.wait_xid(c2.send(rq)));

  of::GroupMod gm;
  gm.group_id = 5;
  gm.type = of::GroupType::kAll;
  gm.buckets = {of::Bucket{0, of::port::kAny, of::group::kAny, {of::Action::output(2)}}};
  ASSERT_TRUE(c2.wait_xid(c2.send(of::BarrierRequest{})));
  c2.send(gm);  // c1 has not asked yet: not forwarded
  ASSERT_TRUE(c2.wait_xid(c2.send(of::BarrierRequest{})));

  of::SetAsync sa;
  sa.present = 1u << 10;  // OFPACPT_REQUESTFORWARD_SLAVE
  sa.requestforward_mask = {0, 0x3};
  c1.send(sa);
  ASSERT_TRUE(c1.wait_xid(c1.send(of::BarrierRequest{})));
  gm.group_id = 6;
  const uint32_t gxid = c2.send(gm);
  c2.send(gm);  // group 6 exists: OFPGMFC_GROUP_EXISTS, not forwarded
  of::MeterMod mm;
  mm.flags = of::meter_flags::kPktps;
  mm.meter_id = 3;
  of::MeterBand band;
  band.rate = 100;
  mm.bands = {band};
  const uint32_t mxid = c2.send(mm);
  ASSERT_TRUE(c2.wait_xid(c2.send(of::BarrierRequest{})));

  auto f1 = c1.wait_for(MsgType::kRequestForward);
  auto f2 = c1.wait_for(MsgType::kRequestForward);
  ASSERT_TRUE(f1 && f2) << "the slave got no request forward";
  EXPECT_EQ(f1->version, of::kOf14);
  EXPECT_EQ(f1->xid, gxid);
  EXPECT_EQ(f2->xid, mxid);
  auto want_g = of::encode_message(of::Message{of::kOf14, gxid, gm});
  auto want_m = of::encode_message(of::Message{of::kOf14, mxid, mm});
  ASSERT_TRUE(want_g.ok() && want_m.ok());
  EXPECT_EQ(f1->as<of::RequestForward>().request, *want_g);
  EXPECT_EQ(f2->as<of::RequestForward>().request, *want_m);
  auto inner = of::decode_message(f1->as<of::RequestForward>().request);
  ASSERT_TRUE(inner.ok());
  EXPECT_EQ(inner->as<of::GroupMod>().group_id, 6u);
  EXPECT_FALSE(c1.wait_for(MsgType::kRequestForward, 300ms).has_value()) << "more than the two applied";
  EXPECT_EQ(c2.count(MsgType::kRequestForward), 0u);
  // A controller sending one gets OFPBRC_BAD_TYPE: only a switch sends it.
  auto e = c1.wait_xid(c1.send(of::RequestForward{*want_g}));
  ASSERT_TRUE(e && e->is<of::ErrorMsg>());
  EXPECT_EQ(e->as<of::ErrorMsg>().code, uint16_t(of::BadRequestCode::kBadType));
  if (fx.sw) fx.sw->stop();
}

}  // namespace
}  // namespace flowlab::sw::testing
