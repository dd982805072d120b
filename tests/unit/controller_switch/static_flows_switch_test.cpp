// flowlab controller's static-flows app installing a flow file on flowlab's
// switch, both in this process (the switch on memory ports, the controller
// on a loopback port; no root needed): OF1.3 in bundles (every flow in the
// table, a packet to one of them forwarded by it), a bundle holding one bad
// flow refused whole while the others are applied, OF1.0 with plain
// flow-mods and barriers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../controller/fake_switch.h"
#include "../switch/switch_harness.h"
#include "controller/apps/static_flows.h"
#include "packet/builder.h"

namespace flowlab {
namespace {

using namespace std::chrono_literals;

// A file of n `priority=20,ip,nw_dst=11.x.y.z,actions=output:2` lines; line
// `bad` (1-based, 0: none) outputs to a group the switch does not have.
std::string flow_file(size_t n, size_t bad = 0) {
  auto path = std::filesystem::temp_directory_path() /
              ("flowlab-static-flows-" + std::to_string(::getpid()) + "-" + std::to_string(n) + ".txt");
  std::ofstream out(path);
  out << "# static flows for the test\n";
  for (size_t i = 0; i < n; ++i) {
    uint32_t a = 0x0b000000u + uint32_t(i);
    out << "priority=20,ip,nw_dst=" << (a >> 24) << '.' << ((a >> 16) & 255) << '.' << ((a >> 8) & 255) << '.'
        << (a & 255) << (i + 1 == bad ? ",actions=group:99\n" : ",actions=output:2\n");
  }
  return path.string();
}

struct StaticFlowsRun {
  StaticFlowsRun(const std::string& file, size_t bundle_size, uint32_t version_bitmap) {
    auto app = controller::StaticFlows::load(file, bundle_size);
    EXPECT_TRUE(app.ok()) << (app.ok() ? "" : app.error().message);
    std::vector<std::unique_ptr<controller::App>> apps;
    apps.push_back(std::move(*app));
    ctl = std::make_unique<controller::testing::ControllerRunner>(std::move(apps));
    auto o = sw::testing::options_with_controller(ctl->port());
    if (version_bitmap) o.version_bitmap = version_bitmap;  // 0: OF1.3 and OF1.0
    fx = std::make_unique<sw::testing::SwitchFixture>(o);
  }
  ~StaticFlowsRun() {
    fx.reset();
    ctl.reset();
  }
  // Waits until the table holds n flows and stays there for a moment.
  size_t settle(size_t n, std::chrono::milliseconds t = 60s) {
    auto deadline = std::chrono::steady_clock::now() + t;
    while (fx->sw->datapath().flow_count() < n && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(20ms);
    std::this_thread::sleep_for(300ms);
    return fx->sw->datapath().flow_count();
  }
  std::unique_ptr<controller::testing::ControllerRunner> ctl;
  std::unique_ptr<sw::testing::SwitchFixture> fx;
};

Bytes to_host(uint32_t dst) {
  return FrameBuilder()
      .eth(sw::testing::mac(2), sw::testing::mac(1))
      .ipv4(Ipv4Addr{0x0a000001u}, Ipv4Addr{dst})
      .udp(1000, 2000)
      .payload(40)
      .build();
}

TEST(StaticFlowsSwitch, BundlesInstallEveryFlowAndTheyForward) {
  const std::string f = flow_file(20000);
  {
    StaticFlowsRun r(f, 1000, 0);
    EXPECT_EQ(r.settle(20000), 20000u);
    r.fx->mem[0]->inject(to_host(0x0b000000u + 12345));
    auto out = r.fx->wait_tx(1, 1);
    ASSERT_EQ(out.size(), 1u);  // forwarded by its flow to port 2
    EXPECT_EQ(r.fx->mem[0]->take_tx().size(), 0u);
    r.fx->mem[0]->inject(to_host(0x0c000000u));  // no flow: table-miss drops it (OF1.3)
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(r.fx->mem[1]->take_tx().size(), 0u);
  }
  std::filesystem::remove(f);
}

TEST(StaticFlowsSwitch, ABundleWithABadFlowIsRefusedWholeTheOthersApplied) {
  // 10 bundles of 500; line 1234 (bundle 3: flows 1001-1500) outputs to a missing group.
  const std::string f = flow_file(5000, 1234);
  {
    StaticFlowsRun r(f, 500, 0);
    EXPECT_EQ(r.settle(4500, 30s), 4500u);
    // A flow of the refused bundle is absent, its neighbours in the other bundles present.
    r.fx->mem[0]->inject(to_host(0x0b000000u + 1100));
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(r.fx->mem[1]->take_tx().size(), 0u);
    r.fx->mem[0]->inject(to_host(0x0b000000u + 999));
    EXPECT_EQ(r.fx->wait_tx(1, 1).size(), 1u);
    r.fx->mem[0]->inject(to_host(0x0b000000u + 1500));
    EXPECT_EQ(r.fx->wait_tx(1, 1).size(), 1u);
  }
  std::filesystem::remove(f);
}

TEST(StaticFlowsSwitch, Of10GetsPlainFlowModsAndBarriers) {
  const std::string f = flow_file(3000);
  {
    StaticFlowsRun r(f, 1000, 1u << of::kOf10);
    EXPECT_EQ(r.settle(3000), 3000u);
    r.fx->mem[0]->inject(to_host(0x0b000000u + 2999));
    EXPECT_EQ(r.fx->wait_tx(1, 1).size(), 1u);
  }
  std::filesystem::remove(f);
}

TEST(StaticFlowsSwitch, BadFileNamesTheLine) {
  auto path = std::filesystem::temp_directory_path() / ("flowlab-static-bad-" + std::to_string(::getpid()));
  {
    std::ofstream out(path);
    out << "priority=1,actions=drop\n\n# comment\npriority=2,nw_dst=1.2.3.4.5,actions=drop\n";
  }
  auto app = controller::StaticFlows::load(path.string(), 10);
  ASSERT_FALSE(app.ok());
  EXPECT_NE(app.error().message.find(path.string() + ":4:"), std::string::npos) << app.error().message;
  std::filesystem::remove(path);
  auto missing = controller::StaticFlows::load("/nonexistent/flows.txt", 10);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot read"), std::string::npos);
}

}  // namespace
}  // namespace flowlab
