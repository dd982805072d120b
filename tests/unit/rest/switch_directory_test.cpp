// SwitchDirectory inside a real controller runtime, against the fake switch of
// the controller tests (a real Connection over loopback): snapshots, multipart
// replies, modifications confirmed by barrier, and the error statuses (unknown
// dpid 404, no reply 504, switch gone mid-request 404 without waiting out the
// timeout).
#include "rest/switch_directory.h"

#include <gtest/gtest.h>

#include <future>

#include "../controller/fake_switch.h"

namespace flowlab::rest {
namespace {

using controller::testing::ControllerRunner;
using controller::testing::FakeSwitch;
using namespace std::chrono_literals;

struct Runtime {
  explicit Runtime(std::chrono::milliseconds timeout) {
    auto d = std::make_unique<SwitchDirectory>(timeout);
    dir = d.get();
    std::vector<std::unique_ptr<controller::App>> apps;
    apps.push_back(std::move(d));
    runner = std::make_unique<ControllerRunner>(std::move(apps));
  }
  bool wait_switches(size_t n) {
    for (int i = 0; i < 300; ++i) {
      if (dir->switches().size() == n) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  SwitchDirectory* dir = nullptr;
  std::unique_ptr<ControllerRunner> runner;
};

TEST(SwitchDirectory, SnapshotsFollowTheSwitches) {
  Runtime rt(1s);
  {
    FakeSwitch sw(rt.runner->port(), of::kOf13, 0x2a);
    ASSERT_TRUE(rt.wait_switches(1));
    auto s = rt.dir->find(0x2a);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->version, of::kOf13);
    EXPECT_EQ(s->ports.size(), 3u);
    EXPECT_FALSE(rt.dir->find(1).has_value());
    RuntimeTopology topo(*rt.dir);
    ASSERT_EQ(topo.switches().size(), 1u);
    EXPECT_EQ(topo.switches()[0].ports[1].name, "p2");
  }
  EXPECT_TRUE(rt.wait_switches(0));
}

TEST(SwitchDirectory, MultipartAndModify) {
  Runtime rt(2s);
  FakeSwitch sw(rt.runner->port(), of::kOf13, 1);
  ASSERT_TRUE(rt.wait_switches(1));
  auto parts = rt.dir->multipart(1, of::PortDescRequest{});
  ASSERT_TRUE(parts.ok()) << parts.error().message;
  ASSERT_EQ(parts->size(), 1u);
  EXPECT_EQ(std::get<of::PortDescReply>(parts->front()).ports.size(), 3u);

  of::FlowMod fm;
  fm.priority = 77;
  auto st = rt.dir->modify(1, fm);
  ASSERT_TRUE(st.ok()) << st.error().message;
  // The flow-mod reached the switch before the barrier that confirmed it.
  auto msgs = sw.messages();
  auto fm_at = std::find_if(msgs.begin(), msgs.end(), [](const auto& m) {
    return m.template is<of::FlowMod>() && m.template as<of::FlowMod>().priority == 77;
  });
  ASSERT_NE(fm_at, msgs.end());
  EXPECT_TRUE(
      std::any_of(fm_at, msgs.end(), [](const auto& m) { return m.template is<of::BarrierRequest>(); }));
}

TEST(SwitchDirectory, Errors) {
  Runtime rt(300ms);
  auto none = rt.dir->multipart(5, of::DescRequest{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().status, 404);
  EXPECT_EQ(rt.dir->modify(5, of::FlowMod{}).error().status, 404);
  FakeSwitch sw(rt.runner->port(), of::kOf13, 1);
  ASSERT_TRUE(rt.wait_switches(1));
  // The fake switch never answers a desc request.
  auto silent = rt.dir->multipart(1, of::DescRequest{});
  ASSERT_FALSE(silent.ok());
  EXPECT_EQ(silent.error().status, 504);
}

TEST(SwitchDirectory, SwitchLeavingAnswers404) {
  Runtime rt(10s);
  auto sw = std::make_unique<FakeSwitch>(rt.runner->port(), of::kOf13, 1);
  ASSERT_TRUE(rt.wait_switches(1));
  auto pending = std::async(std::launch::async, [&] { return rt.dir->multipart(1, of::DescRequest{}); });
  ASSERT_TRUE(sw->wait([](const auto& ms) {
    return std::any_of(ms.begin(), ms.end(), [](const auto& m) {
      return m.template is<of::MultipartRequest>() &&
             std::holds_alternative<of::DescRequest>(m.template as<of::MultipartRequest>().body);
    });
  }));
  sw.reset();  // the switch disconnects with the request unanswered
  auto r = pending.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().status, 404) << r.error().message;  // not 504: nobody waited out the 10 s
}

TEST(SwitchDirectory, Of10SwitchRefusesMeterRequests) {
  Runtime rt(1s);
  FakeSwitch sw(rt.runner->port(), of::kOf10, 3);
  ASSERT_TRUE(rt.wait_switches(1));
  EXPECT_EQ(rt.dir->find(3)->ports.size(), 3u);  // from the OF1.0 features reply
  auto r = rt.dir->multipart(3, of::MeterStatsRequest{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().status, 400) << r.error().message;
}

}  // namespace
}  // namespace flowlab::rest
