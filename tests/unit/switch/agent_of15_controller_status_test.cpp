// OpenFlow 1.5 controller status in the agent: two controllers at 1.5 on one
// switch hear each other's connection come up and each role change as
// OFPT_CONTROLLER_STATUS, and OFPMP_CONTROLLER_STATUS lists both, one per
// reply message (OFPMPF_REPLY_MORE on the first).
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

using of::MsgType;

// The first controller status `c` gets that `pred` accepts (skipping others).
std::optional<of::ControllerStatusEntry> status_where(
    TestController& c, const std::function<bool(const of::ControllerStatusEntry&)>& pred) {
  for (int i = 0; i < 16; ++i) {
    auto m = c.wait_for(MsgType::kControllerStatus);
    if (!m) return std::nullopt;
    if (pred(m->as<of::ControllerStatus>().status)) return m->as<of::ControllerStatus>().status;
  }
  return std::nullopt;
}

std::string uri_of(const TestController& c) { return "tcp:127.0.0.1:" + std::to_string(c.port()); }

TEST(AgentOf15ControllerStatus, ConnectionsRoleChangesAndTheList) {
  TestController c1{{of::kOf15}}, c2{{of::kOf15}};
  SwitchOptions o = options_with_controller(c1.port());
  o.controllers.push_back(options_with_controller(c2.port()).controllers[0]);
  SwitchFixture fx(o, 2);
  ASSERT_TRUE(c1.wait_ready());
  ASSERT_TRUE(c2.wait_ready());
  using R = of::ControllerStatusReason;
  // The switch connects to both at once: the one connected first hears the other come up.
  auto came_up = [&](TestController& listener, const TestController& other) {
    return status_where(listener, [&](const auto& e) {
      return e.reason == R::kChannelStatus && e.uri == uri_of(other) &&
             e.channel_status == of::ChannelStatus::kUp;
    });
  };
  auto up = came_up(c1, c2);
  if (!up) up = came_up(c2, c1);
  ASSERT_TRUE(up.has_value()) << "neither controller heard the other come up";
  EXPECT_EQ(up->role, of::ControllerRole::kEqual);

  of::RoleRequest rq;
  rq.role = of::ControllerRole::kMaster;
  rq.generation_id = 1;
  ASSERT_TRUE(c1.wait_xid(c1.send(rq)));
  rq.generation_id = 2;
  ASSERT_TRUE(c2.wait_xid(c2.send(rq)));
  // c1 hears c2 become master and itself demoted.
  auto master = status_where(c1, [&](const auto& e) { return e.reason == R::kRole && e.uri == uri_of(c2); });
  ASSERT_TRUE(master.has_value());
  EXPECT_EQ(master->role, of::ControllerRole::kMaster);
  auto demoted = status_where(c2, [&](const auto& e) {
    return e.reason == R::kRole && e.uri == uri_of(c1) && e.role == of::ControllerRole::kSlave;
  });
  EXPECT_TRUE(demoted.has_value()) << "c2 never heard c1 demoted";

  const uint32_t xid = c2.send(of::MultipartRequest{0, of::ControllerStatusRequest{}});
  auto first = c2.wait_xid(xid), second = c2.wait_xid(xid);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->as<of::MultipartReply>().flags, of::kMultipartMore);
  EXPECT_EQ(second->as<of::MultipartReply>().flags, 0);
  std::set<std::string> listed;  // in the order the switch connected, which is either
  for (const auto* m : {&*first, &*second}) {
    const auto& r = std::get<of::ControllerStatusReply>(m->as<of::MultipartReply>().body);
    ASSERT_EQ(r.controllers.size(), 1u);
    EXPECT_EQ(r.controllers[0].reason, R::kRequest);
    listed.insert(r.controllers[0].uri.value_or("-") + " " +
                  (r.controllers[0].role == of::ControllerRole::kMaster ? "master" : "slave"));
  }
  EXPECT_EQ(listed, (std::set<std::string>{uri_of(c1) + " slave", uri_of(c2) + " master"}));
}

}  // namespace
}  // namespace flowlab::sw::testing
