// static-flows against a fake switch: the file goes out in bundles of the
// chosen size, in file order, never more than two commits unanswered; the
// next bundle leaves only when a commit is answered.
#include "controller/apps/static_flows.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fake_switch.h"
#include "openflow/codec.h"
#include "openflow/of13/bundle.h"

namespace flowlab::controller {
namespace {

using namespace testing;

std::vector<of::BundleControl> controls(FakeSwitch& sw, of::BundleCtrlType t,
                                        std::vector<uint32_t>* xids = nullptr) {
  std::vector<of::BundleControl> out;
  for (auto& m : sw.messages()) {
    if (!m.is<of::ExperimenterMsg>()) continue;
    auto c = of::decode_bundle_control(m.as<of::ExperimenterMsg>());
    if (c.ok() && c->type == t) {
      out.push_back(*c);
      if (xids) xids->push_back(m.xid);
    }
  }
  return out;
}

std::vector<of::FlowMod> bundled(FakeSwitch& sw) {
  std::vector<of::FlowMod> out;
  for (auto& m : sw.messages()) {
    if (!m.is<of::ExperimenterMsg>()) continue;
    auto a = of::decode_bundle_add(m.as<of::ExperimenterMsg>());
    if (!a.ok()) continue;
    auto inner = of::decode_message(a->message);
    if (inner.ok() && inner->is<of::FlowMod>()) out.push_back(inner->as<of::FlowMod>());
  }
  return out;
}

TEST(StaticFlows, BundlesInFileOrderTwoInFlight) {
  auto path = std::filesystem::temp_directory_path() / ("flowlab-sf-unit-" + std::to_string(::getpid()));
  {
    std::ofstream out(path);
    for (int i = 1; i <= 10; ++i) out << "priority=" << i << ",in_port=" << i << ",actions=output:1\n";
  }
  auto app = StaticFlows::load(path.string(), 3);
  std::filesystem::remove(path);
  ASSERT_TRUE(app.ok()) << app.error().message;
  EXPECT_EQ((*app)->flow_count(), 10u);
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(std::move(*app));
  ControllerRunner c(std::move(apps));
  FakeSwitch sw(c.port(), of::kOf13);

  auto n_commits = [&] { return controls(sw, of::BundleCtrlType::kCommitRequest).size(); };
  for (int i = 0; i < 300 && n_commits() < 2; ++i) std::this_thread::sleep_for(10ms);
  std::this_thread::sleep_for(200ms);
  std::vector<uint32_t> xids;
  auto commits = controls(sw, of::BundleCtrlType::kCommitRequest, &xids);
  ASSERT_EQ(commits.size(), 2u);  // two bundles in flight, no more until one is answered
  EXPECT_EQ(bundled(sw).size(), 6u);
  EXPECT_NE(commits[0].bundle_id, commits[1].bundle_id);

  // Answer commit after commit: the rest goes, 3 + 3 + 3 + 1 flows in 4 bundles.
  for (size_t answered = 0; answered < 4; ++answered) {
    for (int i = 0; i < 300 && n_commits() <= answered; ++i) std::this_thread::sleep_for(10ms);
    xids.clear();
    commits = controls(sw, of::BundleCtrlType::kCommitRequest, &xids);
    ASSERT_GT(commits.size(), answered);
    sw.send(of::encode_bundle_control(
                {commits[answered].bundle_id, of::BundleCtrlType::kCommitReply, commits[answered].flags, {}}),
            xids[answered]);
  }
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(n_commits(), 4u);
  EXPECT_EQ(controls(sw, of::BundleCtrlType::kOpenRequest).size(), 4u);
  auto fms = bundled(sw);
  ASSERT_EQ(fms.size(), 10u);
  for (size_t i = 0; i < fms.size(); ++i) EXPECT_EQ(fms[i].priority, i + 1);  // file order
}

}  // namespace
}  // namespace flowlab::controller
