// Datapath::bundle_flow_mods against a fake switch: what goes on the wire is
// open, one add per flow-mod (the flow-mod inside, with the add's xid), then
// commit, all for one bundle id; the commit's reply reaches the callback, and
// OF1.0 switches are refused.
#include <gtest/gtest.h>

#include <atomic>

#include "controller/flows.h"
#include "fake_switch.h"
#include "openflow/codec.h"
#include "openflow/of13/bundle.h"

namespace flowlab::controller {
namespace {

using namespace testing;

struct BundleApp : App {
  std::atomic<int> replies{0};
  std::atomic<bool> refused{false};
  std::string_view name() const override { return "bundle-test"; }
  void switch_connected(Datapath& dp) override {
    std::vector<of::FlowMod> mods;
    for (uint32_t p = 1; p <= 3; ++p) {
      of::Match m;
      m.add(of::OxmField::basic(of::OxmId::kInPort, p));
      mods.push_back(make_flow(0, 10, m, {of::Action::output(p % 3 + 1)}));
    }
    auto r = dp.bundle_flow_mods(std::move(mods), [this](Datapath&, const of::Message& reply) {
      if (reply.is<of::ExperimenterMsg>()) replies++;
    });
    if (!r.ok()) refused = true;
  }
};

TEST(BundleApi, OpenAddsCommitOnTheWireAndReplyDelivered) {
  auto app = std::make_unique<BundleApp>();
  BundleApp* a = app.get();
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(std::move(app));
  ControllerRunner c(std::move(apps));
  FakeSwitch sw(c.port(), of::kOf13);
  ASSERT_TRUE(sw.wait_count<of::ExperimenterMsg>(5));
  std::vector<of::Message> exp;
  for (auto& m : sw.messages())
    if (m.is<of::ExperimenterMsg>()) exp.push_back(m);
  ASSERT_EQ(exp.size(), 5u);
  auto open = of::decode_bundle_control(exp[0].as<of::ExperimenterMsg>());
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->type, of::BundleCtrlType::kOpenRequest);
  EXPECT_EQ(open->flags, of::bundle_flags::kAtomic | of::bundle_flags::kOrdered);
  for (size_t i = 1; i <= 3; ++i) {
    auto add = of::decode_bundle_add(exp[i].as<of::ExperimenterMsg>());
    ASSERT_TRUE(add.ok()) << add.error().message;
    EXPECT_EQ(add->bundle_id, open->bundle_id);
    auto inner = of::decode_message(add->message);
    ASSERT_TRUE(inner.ok());
    EXPECT_EQ(inner->xid, exp[i].xid);  // the inner xid repeats the add's
    ASSERT_TRUE(inner->is<of::FlowMod>());
    EXPECT_EQ(inner->as<of::FlowMod>().match.fields.at(0).value,
              of::OxmField::basic(of::OxmId::kInPort, uint32_t(i)).value);
  }
  auto commit = of::decode_bundle_control(exp[4].as<of::ExperimenterMsg>());
  ASSERT_TRUE(commit.ok());
  EXPECT_EQ(commit->type, of::BundleCtrlType::kCommitRequest);
  EXPECT_EQ(commit->bundle_id, open->bundle_id);
  EXPECT_EQ(a->replies.load(), 0);
  sw.send(of::encode_bundle_control({commit->bundle_id, of::BundleCtrlType::kCommitReply, commit->flags, {}}),
          exp[4].xid);
  for (int i = 0; i < 300 && a->replies.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(a->replies.load(), 1);
  EXPECT_FALSE(a->refused.load());
}

TEST(BundleApi, Of10SwitchIsRefused) {
  auto app = std::make_unique<BundleApp>();
  BundleApp* a = app.get();
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(std::move(app));
  ControllerRunner c(std::move(apps));
  FakeSwitch sw(c.port(), of::kOf10);
  for (int i = 0; i < 300 && !a->refused.load(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(a->refused.load());
  EXPECT_TRUE(sw.all<of::ExperimenterMsg>().empty());
}

}  // namespace
}  // namespace flowlab::controller
