// Bundles through the switch agent over a real controller connection: open,
// add, close, commit, discard; nothing reaches the tables before the commit;
// a failing flow-mod refuses the whole bundle (its own error, then
// OFPBFC_MSG_FAILED) and leaves the table as it was; every misuse gets its
// OFPBFC_* code and the connection stays up.
#include "openflow/codec.h"
#include "openflow/of13/bundle.h"
#include "switch/agent.h"
#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

using of::BundleCtrlType;
using of::BundleFailedCode;

struct AgentBundleTest : ::testing::Test {
  TestController ctl;
  std::unique_ptr<SwitchFixture> fx;
  uint32_t xid = 0x9000;
  void SetUp() override {
    fx = std::make_unique<SwitchFixture>(options_with_controller(ctl.port()), 3);
    ASSERT_TRUE(ctl.wait_ready()) << "switch never connected to the controller";
  }
  void TearDown() override {
    if (fx && fx->sw) fx->sw->stop();
  }
  uint32_t control(uint32_t id, BundleCtrlType t, uint16_t flags = of::bundle_flags::kAtomic) {
    ctl.send_xid(++xid, of::encode_bundle_control({id, t, flags, {}}));
    return xid;
  }
  uint32_t add(uint32_t id, of::MessageBody inner, uint16_t flags = of::bundle_flags::kAtomic,
               int inner_xid_delta = 0) {
    ++xid;
    auto w = of::encode_message(of::Message{of::kOf13, uint32_t(xid + inner_xid_delta), std::move(inner)});
    EXPECT_TRUE(w.ok());
    ctl.send_xid(xid, of::encode_bundle_add({id, flags, *w, {}}));
    return xid;
  }
  // The bundle control reply to `x`, checked for its type.
  void expect_reply(uint32_t x, BundleCtrlType t) {
    auto r = ctl.wait_xid(x);
    ASSERT_TRUE(r && r->is<of::ExperimenterMsg>()) << "no bundle reply for xid " << x;
    auto c = of::decode_bundle_control(r->as<of::ExperimenterMsg>());
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->type, t);
  }
  BundleFailedCode expect_bundle_error(uint32_t x) {
    auto r = ctl.wait_xid(x);
    EXPECT_TRUE(r && r->is<of::ErrorMsg>()) << "no error for xid " << x;
    BundleFailedCode c = BundleFailedCode::kUnknown;
    if (r && r->is<of::ErrorMsg>()) {
      EXPECT_TRUE(of::bundle_error_code(r->as<of::ErrorMsg>(), c));
    }
    return c;
  }
  size_t flows() {
    auto fs = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::FlowStatsRequest{}}));
    EXPECT_TRUE(fs && fs->is<of::MultipartReply>());
    return fs ? std::get<of::FlowStatsReply>(fs->as<of::MultipartReply>().body).stats.size() : 0;
  }
};

TEST_F(AgentBundleTest, CommitAppliesEverythingAtOnce) {
  expect_reply(control(1, BundleCtrlType::kOpenRequest), BundleCtrlType::kOpenReply);
  add(1, flow(1, {of::Action::output(2)}));
  add(1, flow(2, {of::Action::output(1)}));
  add(1, flow(3, {of::Action::output(1)}));
  // Added, not applied: no flow yet, and a packet from port 1 goes nowhere.
  EXPECT_EQ(flows(), 0u);
  fx->mem[0]->inject(udp_frame(1, 2));
  EXPECT_TRUE(fx->wait_tx(1, 1, 300ms).empty());
  expect_reply(control(1, BundleCtrlType::kCloseRequest), BundleCtrlType::kCloseReply);
  expect_reply(control(1, BundleCtrlType::kCommitRequest), BundleCtrlType::kCommitReply);
  EXPECT_EQ(flows(), 3u);
  fx->mem[0]->inject(udp_frame(1, 2));
  EXPECT_EQ(fx->wait_tx(1, 1).size(), 1u);
  // The bundle is gone after its commit.
  EXPECT_EQ(expect_bundle_error(control(1, BundleCtrlType::kCommitRequest)), BundleFailedCode::kBadId);
}

TEST_F(AgentBundleTest, FailingFlowModRefusesTheWholeBundle) {
  auto ok = ctl.send(flow(3, {of::Action::output(1)}, 50));
  ASSERT_TRUE(ctl.wait_xid(ctl.send(of::BarrierRequest{})));
  ASSERT_FALSE(ctl.wait_xid(ok, 0ms));
  expect_reply(control(2, BundleCtrlType::kOpenRequest), BundleCtrlType::kOpenReply);
  add(2, flow(1, {of::Action::output(2)}));
  of::FlowMod del = flow(3, {}, 50);
  del.command = of::FlowModCommand::kDeleteStrict;
  add(2, del);
  const uint32_t bad = add(2, flow(2, {of::Action::group(9)}));  // no group 9
  const uint32_t commit = control(2, BundleCtrlType::kCommitRequest);
  auto e = ctl.wait_xid(bad);
  ASSERT_TRUE(e && e->is<of::ErrorMsg>()) << "the failing flow-mod's own error, with its xid";
  EXPECT_EQ(e->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kBadAction));
  EXPECT_EQ(expect_bundle_error(commit), BundleFailedCode::kMsgFailed);
  EXPECT_EQ(flows(), 1u);  // the flow the bundle deleted is still there, the one it added is not
  fx->mem[2]->inject(udp_frame(3, 1));
  EXPECT_EQ(fx->wait_tx(0, 1).size(), 1u);
}

TEST_F(AgentBundleTest, MisuseGetsItsBundleError) {
  EXPECT_EQ(expect_bundle_error(control(7, BundleCtrlType::kCommitRequest)), BundleFailedCode::kBadId);
  EXPECT_EQ(expect_bundle_error(control(7, BundleCtrlType::kCloseRequest)), BundleFailedCode::kBadId);
  EXPECT_EQ(expect_bundle_error(control(7, BundleCtrlType::kDiscardRequest)), BundleFailedCode::kBadId);
  expect_reply(control(7, BundleCtrlType::kOpenRequest), BundleCtrlType::kOpenReply);
  EXPECT_EQ(expect_bundle_error(control(7, BundleCtrlType::kOpenRequest)), BundleFailedCode::kBundleExist);
  EXPECT_EQ(expect_bundle_error(control(7, BundleCtrlType::kOpenReply)), BundleFailedCode::kBadType);
  EXPECT_EQ(expect_bundle_error(add(7, flow(1, {}), of::bundle_flags::kOrdered)),
            BundleFailedCode::kBadFlags);
  EXPECT_EQ(expect_bundle_error(add(7, flow(1, {}), of::bundle_flags::kAtomic, 1)),
            BundleFailedCode::kMsgBadXid);
  EXPECT_EQ(expect_bundle_error(add(7, of::BarrierRequest{})), BundleFailedCode::kMsgUnsup);
  of::FlowMod buffered = flow(1, {of::Action::output(2)});
  buffered.buffer_id = 5;
  EXPECT_EQ(expect_bundle_error(add(7, buffered)), BundleFailedCode::kMsgUnsup);
  EXPECT_EQ(expect_bundle_error(control(7, BundleCtrlType::kCommitRequest, of::bundle_flags::kOrdered)),
            BundleFailedCode::kBadFlags);
  expect_reply(control(7, BundleCtrlType::kCloseRequest), BundleCtrlType::kCloseReply);
  EXPECT_EQ(expect_bundle_error(add(7, flow(1, {}))), BundleFailedCode::kBundleClosed);
  EXPECT_EQ(expect_bundle_error(control(7, BundleCtrlType::kCloseRequest)), BundleFailedCode::kBundleClosed);
  // Discard drops what was added: committing after it is BAD_ID, the table stays empty.
  expect_reply(control(8, BundleCtrlType::kOpenRequest), BundleCtrlType::kOpenReply);
  add(8, flow(1, {of::Action::output(2)}));
  expect_reply(control(8, BundleCtrlType::kDiscardRequest), BundleCtrlType::kDiscardReply);
  EXPECT_EQ(expect_bundle_error(control(8, BundleCtrlType::kCommitRequest)), BundleFailedCode::kBadId);
  EXPECT_EQ(flows(), 0u);
  // A malformed bundle body: its decoder's code.
  ctl.send_xid(++xid, of::ExperimenterMsg{of::kOnfExperimenter, of::kOnfBundleControl, Bytes{0, 0}});
  EXPECT_EQ(expect_bundle_error(xid), BundleFailedCode::kMsgBadLen);
  // An add opens the bundle it names.
  add(9, flow(2, {of::Action::output(1)}));
  expect_reply(control(9, BundleCtrlType::kCommitRequest), BundleCtrlType::kCommitReply);
  EXPECT_EQ(flows(), 1u);
  EXPECT_FALSE(ctl.closed());
}

TEST_F(AgentBundleTest, OpenBundlesAreLimited) {
  for (uint32_t i = 0; i < Agent::kMaxBundlesPerPeer; ++i) control(100 + i, BundleCtrlType::kOpenRequest);
  ASSERT_TRUE(ctl.wait_xid(xid));
  EXPECT_EQ(expect_bundle_error(control(1, BundleCtrlType::kOpenRequest)), BundleFailedCode::kOutOfBundles);
  EXPECT_EQ(expect_bundle_error(add(2, flow(1, {}))), BundleFailedCode::kOutOfBundles);
}

}  // namespace
}  // namespace flowlab::sw::testing
