// The switch SIGKILLed and restarted, and several controllers with roles
// (issue #14, faults), as root in namespaces. The controller's view is read
// from outside, from its REST API and its --stats-json: the switch leaves and
// comes back, no stale datapath stays, the learning switch's flows are
// installed again and traffic resumes. Roles (OF1.3 6.3.6) over real TCP
// connections to a running `flowlab switch`: two scripted controllers
// (SyncClient), master and slave; the slave's flow-mod is refused with
// OFPBRC_IS_SLAVE, the master dies, the slave takes over by a role request with
// a newer generation id, the old master's request with its old generation id
// is refused with OFPRRFC_STALE, and only the current master's flow-mods count.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>

#include "channel/sync_client.h"
#include "fault_net.h"
#include "openflow/text/flow_text.h"

namespace flowlab::lab::fault {
namespace {

class FaultSwitch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_for_fault_tests(); !why.empty()) GTEST_SKIP() << why;
  }
};

// GET http://127.0.0.1:8080PATH from inside the core namespace (null on failure).
nlohmann::json rest_get(const FaultNet& net, const std::string& path) {
  auto r = run_command({"curl", "-s", "-m", "3", "http://127.0.0.1:8080" + path}, in_ns(net.core(), 5));
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  return r.ok() && !j.is_discarded() ? j : nlohmann::json();
}

TEST_F(FaultSwitch, KilledSwitchLeavesTheControllerAndComesBackWithItsFlowsReinstalled) {
  if (!have_program("curl")) GTEST_SKIP() << "needs curl (REST checks)";
  FaultNet net("sk", 2);
  ASSERT_TRUE(net.ok());
  net.set_controller_args(
      {"--app", "learning-switch", "--rest", "127.0.0.1:8080", "--echo-interval", "1", "--dead-peer", "3"});
  ASSERT_TRUE(net.start_controller()) << net.logs();
  ASSERT_TRUE(net.start_switch()) << net.logs();
  ASSERT_TRUE(net.wait_switch_connected()) << net.logs();
  ASSERT_EQ(FaultNet::received(net.ping(0, 1, 3, 0.1)), 3) << net.logs();
  ASSERT_TRUE(eventually([&] { return rest_get(net, "/stats/switches") == nlohmann::json({1}); }, 5s));

  FaultNet::Probe probe(net, 0, 1, 6.0, 1000);
  ASSERT_TRUE(probe.started());
  probe.sleep_until(1.0);
  ASSERT_TRUE(net.kill_switch());
  // The controller sees it leave (the TCP connection closed): REST and stats.
  EXPECT_TRUE(eventually([&] { return rest_get(net, "/stats/switches") == nlohmann::json::array(); }, 3s))
      << rest_get(net, "/stats/switches").dump() << net.logs();
  EXPECT_TRUE(eventually([&] { return net.controller_stats().value("switches_connected", -1) == 0; }, 3s))
      << net.controller_stats().dump();
  probe.sleep_until(2.5);
  ASSERT_TRUE(net.restart_switch()) << net.logs();
  ASSERT_TRUE(net.wait_switch_connected(10s)) << net.logs();
  double restarted = probe.now_s();
  EXPECT_TRUE(eventually([&] { return rest_get(net, "/stats/switches") == nlohmann::json({1}); }, 5s))
      << net.logs();
  // One datapath, the new one: nothing stale.
  EXPECT_TRUE(eventually([&] { return net.controller_stats().value("switches_connected", -1) == 1; }, 3s))
      << net.controller_stats().dump();
  EXPECT_EQ(net.controller_stats().value("switches_seen", 0), 2) << net.controller_stats().dump();
  ASSERT_TRUE(probe.finish()) << probe.sender_output();
  // Nothing forwards while the switch is gone; once it is back, every packet arrives again.
  EXPECT_GT(probe.lost_between(1.1, 2.5), 1300u) << probe.runs(false);
  EXPECT_LT(probe.lost_between(0, 1.0), 5u) << probe.runs(false);
  EXPECT_EQ(probe.lost_between(restarted + 1.0, 6.0), 0u) << probe.runs(false) << net.logs();
  // The probe is one-way: the learning switch knows h1 again once h1 speaks.
  EXPECT_EQ(FaultNet::received(net.ping(0, 1, 3, 0.1)), 3) << net.logs();
  // The learning switch re-installed its table-miss flow and learned the pair again.
  auto flows = net.ofctl({"dump-flows"});
  ASSERT_TRUE(flows.ok()) << flows.describe();
  EXPECT_NE(flows.out.find("priority=0 actions=CONTROLLER"), std::string::npos) << flows.out;
  EXPECT_NE(flows.out.find("dl_dst=02:00:00:00:00:02"), std::string::npos) << flows.out;
  // And the controller's REST view of it shows the same flows of the new switch.
  auto rest_flows = rest_get(net, "/stats/flow/1");
  ASSERT_TRUE(rest_flows.contains("1")) << rest_flows.dump();
  for (const auto& f : rest_flows["1"]) EXPECT_LT(f.value("duration_sec", 999), 6) << f.dump();
}

// Runs fn on a thread that has entered namespace ns (sockets it opens live there).
template <typename F>
void in_netns(const std::string& ns, F fn) {
  std::thread t([&] {
    int fd = ::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::setns(fd, CLONE_NEWNET), 0);
    ::close(fd);
    fn();
  });
  t.join();
}

of::Message role(of::ControllerRole r, uint64_t generation) {
  of::RoleRequest rq;
  rq.role = r;
  rq.generation_id = generation;
  return of::make_message(of::kOf13, 0, rq);
}

of::Message flow(const std::string& text) {
  auto fm = of::parse_flow_mod(text);
  EXPECT_TRUE(fm.ok()) << text;
  return of::make_message(of::kOf13, 0, *fm);
}

// The role a reply grants, or the error text.
std::string ask(channel::SyncClient& c, of::ControllerRole r, uint64_t generation) {
  auto rep = c.transact(role(r, generation));
  if (!rep.ok()) return rep.error().message;
  if (rep->empty() || !rep->front().is<of::RoleReply>()) return "no role reply";
  auto got = rep->front().as<of::RoleReply>().role;
  return got == of::ControllerRole::kMaster  ? "master"
         : got == of::ControllerRole::kSlave ? "slave"
                                             : "equal";
}

std::string add(channel::SyncClient& c, const std::string& text) {
  auto st = c.send_with_barrier({flow(text)});
  return st.ok() ? "ok" : st.error().message;
}

TEST_F(FaultSwitch, MasterDiesSlaveTakesOverStaleMasterRefused) {
  FaultNet net("ro", 2);
  ASSERT_TRUE(net.ok());
  ASSERT_TRUE(net.start_switch()) << net.logs();  // no controller at its --controller target
  using R = of::ControllerRole;
  const std::string target = "tcp:127.0.0.1:6634";
  in_netns(net.core(), [&] {
    auto ra = channel::SyncClient::connect(target, {of::kOf13});
    auto b = channel::SyncClient::connect(target, {of::kOf13});
    ASSERT_TRUE(ra.ok() && b.ok());
    std::optional<channel::SyncClient> a(std::move(*ra));
    // Equal at first: both may change the table.
    EXPECT_EQ(add(*a, "priority=5,in_port=1,actions=output:2"), "ok");
    EXPECT_EQ(add(*b, "priority=5,in_port=2,actions=output:1"), "ok");
    EXPECT_EQ(ask(*a, R::kMaster, 1), "master");
    EXPECT_EQ(ask(*b, R::kSlave, 1), "slave");
    auto refused = add(*b, "priority=10,ip,nw_dst=10.0.0.9,actions=drop");
    EXPECT_NE(refused.find("OFPBRC_IS_SLAVE"), std::string::npos) << refused;
    EXPECT_EQ(add(*a, "priority=10,ip,nw_dst=10.0.0.10,actions=drop"), "ok");
    // The master dies (its connection closes); the slave takes over with a newer generation.
    a.reset();
    EXPECT_EQ(ask(*b, R::kMaster, 2), "master");
    EXPECT_EQ(add(*b, "priority=10,ip,nw_dst=10.0.0.11,actions=drop"), "ok");
    // The old master comes back with its old generation id: stale.
    auto old = channel::SyncClient::connect(target, {of::kOf13});
    ASSERT_TRUE(old.ok());
    auto stale = ask(*old, R::kMaster, 1);
    EXPECT_NE(stale.find("OFPRRFC_STALE"), std::string::npos) << stale;
    stale = ask(*old, R::kSlave, 1);
    EXPECT_NE(stale.find("OFPRRFC_STALE"), std::string::npos) << stale;
    // A third controller becomes master with generation 3: the previous master is
    // now a slave and is refused; the switch obeys the new master only.
    auto c = channel::SyncClient::connect(target, {of::kOf13});
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(ask(*c, R::kMaster, 3), "master");
    refused = add(*b, "priority=10,ip,nw_dst=10.0.0.12,actions=drop");
    EXPECT_NE(refused.find("OFPBRC_IS_SLAVE"), std::string::npos) << refused;
    EXPECT_EQ(add(*c, "priority=10,ip,nw_dst=10.0.0.13,actions=drop"), "ok");
    // A role query (NOCHANGE) tells b what it is now.
    EXPECT_EQ(ask(*b, R::kNoChange, 0), "slave");
  });
  // The table holds what the masters (and the equals) sent, and nothing the slaves tried.
  auto flows = net.ofctl({"dump-flows"});
  ASSERT_TRUE(flows.ok()) << flows.describe();
  for (const char* want :
       {"in_port=1", "in_port=2", "nw_dst=10.0.0.10", "nw_dst=10.0.0.11", "nw_dst=10.0.0.13"})
    EXPECT_NE(flows.out.find(want), std::string::npos) << want << "\n" << flows.out;
  for (const char* never : {"nw_dst=10.0.0.9", "nw_dst=10.0.0.12"})
    EXPECT_EQ(flows.out.find(never), std::string::npos) << never << "\n" << flows.out;
  EXPECT_TRUE(net.switch_running());
}

}  // namespace
}  // namespace flowlab::lab::fault
