// The controller SIGKILLed mid-stream and started again (issue #14, faults), as
// root in namespaces with traffic flowing: a 1 ms sequence-numbered probe on an
// established pair counts every packet; a pair that never talked shows whether
// new flows wait (fail-mode secure) or are learned by the switch itself
// (standalone), and whether the switch goes back to the controller's flows
// (the firewall's deny) when it returns. The switch's reconnect attempts are
// read from its debug log ("next try in N ms", growing). Against flowlab's
// switch and, where installed, Open vSwitch (fail_mode secure / standalone).
#include <gtest/gtest.h>

#include <regex>

#include "core/clock.h"
#include "fault_net.h"

namespace flowlab::lab::fault {
namespace {

// kClientServerRules (fault_net.h), and h2 accepts nothing.
const std::string kRules = std::string(kClientServerRules) + R"(  - name: closed
    targets: [{ip: 10.0.0.3}]
    ingress: []
)";

class FaultController : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_for_fault_tests(); !why.empty()) GTEST_SKIP() << why;
  }
};

// The delays between reconnect attempts the switch logged (debug), in order.
std::vector<int> backoff_ms(const std::string& log) {
  std::vector<int> out;
  static const std::regex re("next try in ([0-9]+) ms");
  for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it)
    out.push_back(std::stoi((*it)[1]));
  return out;
}

TEST_F(FaultController, SecureKeepsEstablishedFlowsNewPairsWaitAndTheSwitchReconnectsWithBackoff) {
  FaultNet net("cs", 3);
  ASSERT_TRUE(net.ok());
  net.set_controller_args({"--app", "learning-switch", "--echo-interval", "1", "--dead-peer", "3"});
  net.set_switch_args({"--fail-mode", "secure", "--echo-interval", "1", "--log-level", "debug"});
  ASSERT_TRUE(net.start_controller()) << net.logs();
  ASSERT_TRUE(net.start_switch()) << net.logs();
  ASSERT_TRUE(net.wait_switch_connected()) << net.logs();
  ASSERT_EQ(FaultNet::received(net.ping(0, 1, 3, 0.1)), 3) << net.logs();  // h0 <-> h1 flows installed

  FaultNet::Probe probe(net, 0, 1, 6.0, 1000);
  ASSERT_TRUE(probe.started());
  probe.sleep_until(1.0);
  ASSERT_TRUE(net.kill_controller());
  // A pair that never talked: its ARP and pings miss the table and the controller is gone.
  auto during = net.ping(0, 2, 5, 0.2, 1);
  EXPECT_EQ(FaultNet::received(during), 0) << during.out;
  EXPECT_TRUE(net.switch_running());
  probe.sleep_until(3.0);
  ASSERT_TRUE(net.start_controller()) << net.logs();
  EXPECT_TRUE(net.wait_switch_connected(10s)) << net.logs();
  // The controller rebuilt its MAC table from the traffic: the new pair works now.
  // Up to 3 tries: the switch is back within ~100 ms of the restart, while h0's ARP
  // for h2 (begun while the controller was gone) may still be failing, and a
  // failing resolution returns an error for every ping queued behind it.
  CommandResult after;
  for (int i = 0; i < 3; ++i)
    if (FaultNet::received(after = net.ping(0, 2, 3, 0.1, 2)) == 3) break;
  EXPECT_EQ(FaultNet::received(after), 3) << after.out << net.logs();
  ASSERT_TRUE(probe.finish()) << probe.sender_output();

  EXPECT_EQ(probe.sent, 6000u);
  EXPECT_EQ(probe.lost_between(1.0, 3.0), 0u) << "lost while the controller was down";
  EXPECT_EQ(probe.lost(), 0u) << "lost over the kill and the restart: " << probe.runs(false);
  std::string log = read_file(net.sw_log());
  EXPECT_EQ(count_of(log, "controller tcp:127.0.0.1:6653 connected"), 2u) << log;
  EXPECT_EQ(count_of(log, "retrying with backoff"), 1u) << log;
  // The controller's port was closed: a refused connect is retried every 100 ms
  // (refused_max), not with the doubling meant for an unreachable host, so the switch
  // is back at once; about 2 s down gives at least ten attempts.
  auto waits = backoff_ms(log);
  ASSERT_GE(waits.size(), 10u) << log;
  for (int w : waits) EXPECT_LE(w, 100) << log;
  // The new controller saw the switch come up and learned both pairs again.
  EXPECT_GE(count_of(read_file(net.ctl_log()), "switch up"), 2u);
}

// Standalone with the firewall: while the controller is gone the switch is a
// learning switch (the closed host h2 becomes reachable) within 3 echo
// intervals; when the controller returns, its flows rule again (h2 closed),
// and the allowed pair's stream loses nothing through it all.
TEST_F(FaultController, StandaloneLearnsWithinThreeEchoIntervalsAndReturnsToTheControllersFlows) {
  FaultNet net("cl", 3);
  ASSERT_TRUE(net.ok());
  std::ofstream(net.dir() + "/rules.yaml") << kRules;
  net.set_controller_args({"--app", "firewall", "--app", "learning-switch", "--config",
                           net.dir() + "/rules.yaml", "--echo-interval", "1", "--dead-peer", "3"});
  // Reconnect attempts at most 1 s apart: with the default 8 s cap the attempt after
  // the restart can come seconds late (0.1, 0.2, ... 3.2 s after the kill), and the
  // check below gives the controller 1.5 s to be back in charge.
  net.set_switch_args({"--fail-mode", "standalone", "--echo-interval", "1", "--reconnect-max", "1"});
  ASSERT_TRUE(net.start_controller()) << net.logs();
  ASSERT_TRUE(net.start_switch()) << net.logs();
  ASSERT_TRUE(net.wait_switch_connected()) << net.logs();
  ASSERT_EQ(FaultNet::received(net.ping(0, 1, 3, 0.1)), 3) << net.logs();
  ASSERT_EQ(FaultNet::received(net.ping(0, 2, 2, 0.1)), 0) << "the firewall lets h2 in";

  FaultNet::Probe allowed(net, 0, 1, 7.0, 1000, 7002);
  FaultNet::Probe closed(net, 0, 2, 7.0, 1000, 7003);
  ASSERT_TRUE(allowed.started());
  ASSERT_TRUE(closed.started());
  allowed.sleep_until(0.8);
  auto flows_before = net.ofctl({"dump-flows"});
  allowed.sleep_until(1.0);
  double killed_at = closed.now_s();
  ASSERT_TRUE(net.kill_controller());
  allowed.sleep_until(4.0);
  double started_at = closed.now_s();
  ASSERT_TRUE(net.start_controller()) << net.logs();
  EXPECT_TRUE(net.wait_switch_connected(10s)) << net.logs();
  ASSERT_TRUE(allowed.finish()) << allowed.sender_output();
  ASSERT_TRUE(closed.finish()) << closed.sender_output();

  // The closed host is reached by the standalone switch within 3 echo intervals of the kill.
  double first = -1;
  for (uint64_t s = 0; s < closed.sent; ++s)
    if (closed.arrived[s] && s / 1000.0 >= killed_at) {
      first = s / 1000.0;
      break;
    }
  ASSERT_GE(first, 0) << "h2 never reached while the controller was down\n" << net.logs();
  EXPECT_LE(first - killed_at, 3 * 1.0) << net.logs();
  EXPECT_EQ(closed.arrived_between(0, killed_at), 0u) << "h2 open before the kill at " << killed_at << "\n"
                                                      << closed.runs(true) << flows_before.out;
  // While standalone (kill + 0.5 s .. restart), everything arrives.
  EXPECT_EQ(closed.lost_between(first + 0.5, started_at), 0u);
  // Back under the controller: the firewall's deny rules again (1 s for it to reconnect and install).
  EXPECT_EQ(closed.arrived_between(started_at + 1.5, 7.0), 0u)
      << "h2 still reachable after the controller came back\n"
      << closed.runs(true) << net.ofctl({"dump-flows"}).out << net.logs();
  // The allowed stream: nothing lost before the kill, nor while the controller
  // comes back and rebuilds the firewall's connections and the MACs. Entering
  // standalone mode costs a short gap (the switch leaves its flow table for MAC
  // learning; measured 0 to 0.47 s, see docs/RELIABILITY.md); it must stay
  // under one echo interval and is printed.
  EXPECT_EQ(allowed.lost_between(0, killed_at), 0u) << allowed.runs(false);
  EXPECT_EQ(allowed.lost_between(started_at, 7.0), 0u)
      << allowed.runs(false) << "restart at " << started_at << "\n"
      << net.logs();
  EXPECT_LT(allowed.lost_between(killed_at, started_at), 1000u) << allowed.runs(false);
  std::printf("standalone entry: %llu of %llu packets of the established stream lost (%s)\n",
              (unsigned long long)allowed.lost_between(killed_at, started_at),
              (unsigned long long)allowed.sent, allowed.runs(false).c_str());
  std::string log = read_file(net.sw_log());
  EXPECT_NE(log.find("fail-mode standalone: acting as a learning switch"), std::string::npos) << log;
  EXPECT_NE(log.find("leaving standalone mode"), std::string::npos) << log;
}

// A controller that hangs (SIGSTOP) keeps its TCP connection open: only the
// echo keepalive can find it dead. Standalone must take over after 3 missed
// echoes, not before 2 intervals (the connection is up) and not after 3 + 1.
TEST_F(FaultController, HungControllerIsFoundDeadByEchoAndStandaloneTakesOver) {
  FaultNet net("ch", 3);
  ASSERT_TRUE(net.ok());
  std::ofstream(net.dir() + "/rules.yaml") << kRules;
  net.set_controller_args(
      {"--app", "firewall", "--app", "learning-switch", "--config", net.dir() + "/rules.yaml"});
  net.set_switch_args({"--fail-mode", "standalone", "--echo-interval", "1"});
  ASSERT_TRUE(net.start_controller()) << net.logs();
  ASSERT_TRUE(net.start_switch()) << net.logs();
  ASSERT_TRUE(net.wait_switch_connected()) << net.logs();
  ASSERT_EQ(FaultNet::received(net.ping(0, 2, 2, 0.1)), 0) << "the firewall lets h2 in";
  FaultNet::Probe closed(net, 0, 2, 6.0, 1000, 7003);
  ASSERT_TRUE(closed.started());
  closed.sleep_until(1.0);
  double paused_at = closed.now_s();
  ASSERT_TRUE(net.pause_controller(true));
  ASSERT_TRUE(closed.finish()) << closed.sender_output();
  net.pause_controller(false);
  double first = -1;
  for (uint64_t s = 0; s < closed.sent; ++s)
    if (closed.arrived[s]) {
      first = s / 1000.0;
      break;
    }
  ASSERT_GE(first, 0) << "standalone never took over from the hung controller\n" << net.logs();
  EXPECT_GE(first - paused_at, 1.5) << "taken over before the echoes were missed\n" << closed.runs(true);
  EXPECT_LE(first - paused_at, 3 * 1.0 + 1.0) << closed.runs(true) << net.logs();
  std::printf("hung controller: standalone forwarded %.3f s after SIGSTOP (echo interval 1 s)\n",
              first - paused_at);
  std::string log = read_file(net.sw_log());
  EXPECT_NE(log.find("fail-mode standalone: acting as a learning switch"), std::string::npos) << log;
}

// Open vSwitch under the same controller kill: fail_mode=secure keeps its flows
// (nothing lost, new pairs wait); standalone forwards the new pair itself.
TEST_F(FaultController, OvsSecureAndStandaloneUnderTheSameKill) {
  if (!have_program("ovs-vswitchd") || !have_program("ovsdb-server"))
    GTEST_SKIP() << "needs openvswitch-switch";
  for (std::string mode : {"secure", "standalone"}) {
    SCOPED_TRACE(mode);
    FaultNet net(mode == "secure" ? "os" : "ol", 3, FaultNet::Kind::kOvs);
    ASSERT_TRUE(net.ok());
    net.set_controller_args({"--app", "learning-switch"});
    net.set_switch_args({mode});
    ASSERT_TRUE(net.start_controller()) << net.logs();
    ASSERT_TRUE(net.start_switch()) << net.logs();
    ASSERT_EQ(FaultNet::received(net.ping(0, 1, 3, 0.1)), 3) << net.logs();
    FaultNet::Probe probe(net, 0, 1, 4.0, 1000);
    ASSERT_TRUE(probe.started());
    probe.sleep_until(1.0);
    ASSERT_TRUE(net.kill_controller());
    // OVS notices the closed connection at once; standalone needs its fail-open flow: 1 s of pings.
    auto during = net.ping(0, 2, 8, 0.25, 1);
    if (mode == "secure") {
      EXPECT_EQ(FaultNet::received(during), 0) << during.out;
    } else {
      EXPECT_GE(FaultNet::received(during), 4) << during.out << net.logs();
    }
    ASSERT_TRUE(probe.finish()) << probe.sender_output();
    if (mode == "secure") {
      EXPECT_EQ(probe.lost(), 0u) << net.logs();
    }
    ASSERT_TRUE(net.start_controller()) << net.logs();
    EXPECT_TRUE(net.wait_switch_connected(10s)) << net.logs();
    EXPECT_EQ(FaultNet::received(net.ping(0, 2, 3, 0.1, 2)), 3) << net.logs();
  }
}

}  // namespace
}  // namespace flowlab::lab::fault
