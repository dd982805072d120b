// Two flowlab controllers with roles on one flowlab switch (issue #14, faults),
// as root in namespaces: A runs `--role master --generation-id 1`, B
// `--role slave --generation-id 2`, both with the learning switch and the
// topology service (whose LLDP packet-outs keep every master sending). Read
// from outside, from each controller's --stats-json and log:
//   - B as a slave sends no state-changing message and gets no packet-in;
//   - A hangs (SIGSTOP); B is promoted by SIGUSR1 and becomes master, so the
//     switch demotes A; A resumes (SIGCONT), its next packet-out is refused
//     with OFPBRC_IS_SLAVE and it stops sending state changes;
//   - A dies (SIGKILL); a pair of hosts never seen before pings: B answered
//     the packet-ins and installed the flows;
//   - A is started again with its old generation id: its master request is
//     refused with OFPRRFC_STALE, it sends no flow-mod, B stays master.
#include <gtest/gtest.h>

#include <csignal>

#include "fault_net.h"

namespace flowlab::lab::fault {
namespace {

class FaultRoles : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_for_fault_tests(); !why.empty()) GTEST_SKIP() << why;
  }
};

nlohmann::json stats_of(const std::string& path) {
  auto j = nlohmann::json::parse(read_file(path), nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}
uint64_t role_stat(const nlohmann::json& j, const char* k) {
  return j.contains("role") ? j["role"].value(k, uint64_t(0)) : 0;
}
uint64_t sent_stat(const nlohmann::json& j, const char* k) {
  return j.contains("sent") ? j["sent"].value(k, uint64_t(0)) : 0;
}

TEST_F(FaultRoles, MasterDiesSlavePromotedBySignalTakesOverStaleMasterRefused) {
  FaultNet net("fr", 3);
  ASSERT_TRUE(net.ok());
  const std::vector<std::string> common = {"--app", "learning-switch", "--topology", "on", "--lldp-interval",
                                           "200",   "--log-level",     "info"};
  auto a_args = common;
  a_args.insert(a_args.end(), {"--role", "master", "--generation-id", "1"});
  net.set_controller_args(a_args);
  ASSERT_TRUE(net.start_controller()) << net.logs();

  // The switch knows both; B is not there yet (A's role request must come
  // first: B's, with the larger generation id, would make A's stale).
  net.set_switch_args({"--controller", "tcp:127.0.0.1:6654", "--reconnect-max", "1"});
  ASSERT_TRUE(net.start_switch()) << net.logs();
  ASSERT_TRUE(eventually([&] { return role_stat(stats_of(net.stats_path()), "switches_master") == 1; }, 20s))
      << stats_of(net.stats_path()).dump() << net.logs();

  // B on port 6654, its own stats and log.
  const std::string b_stats = net.dir() + "/b-stats.json", b_log = net.dir() + "/b.log";
  std::vector<std::string> b_argv = {FLOWLAB_BINARY,        "controller",   "--listen",
                                     "ptcp:6654:127.0.0.1", "--stats-json", b_stats};
  b_argv.insert(b_argv.end(), common.begin(), common.end());
  b_argv.insert(b_argv.end(), {"--role", "slave", "--generation-id", "2"});
  auto bp = Process::spawn("controller-b", b_argv, in_ns(net.core()), b_log, nullptr);
  ASSERT_TRUE(bp.ok());
  Process b = std::move(*bp);
  auto all_logs = [&] { return net.logs() + "\n--- controller B:\n" + FaultNet::tail(read_file(b_log)); };
  ASSERT_TRUE(eventually([&] { return stats_of(b_stats).value("switches_connected", 0) == 1; }, 20s))
      << stats_of(b_stats).dump() << all_logs();
  ASSERT_EQ(FaultNet::received(net.ping(0, 1, 3, 0.1)), 3) << all_logs();

  // The slave: connected, sends nothing that changes the switch, gets no packet-in.
  auto bj = stats_of(b_stats);
  EXPECT_EQ(role_stat(bj, "switches_master"), 0u) << bj.dump();
  EXPECT_EQ(sent_stat(bj, "flow_mod"), 0u) << bj.dump();
  EXPECT_EQ(sent_stat(bj, "packet_out"), 0u) << bj.dump();
  EXPECT_EQ(bj.value("packet_in", nlohmann::json::object()).value("received", uint64_t(1)), 0u) << bj.dump();
  EXPECT_EQ(bj.value("packet_in", nlohmann::json::object()).value("lldp", uint64_t(1)), 0u) << bj.dump();

  // A hangs; B takes over by SIGUSR1.
  ASSERT_TRUE(net.pause_controller(true));
  ASSERT_EQ(::kill(b.pid(), SIGUSR1), 0);
  EXPECT_TRUE(eventually([&] { return role_stat(stats_of(b_stats), "switches_master") == 1; }, 10s))
      << stats_of(b_stats).dump() << all_logs();
  // A resumes still believing it is master: its next LLDP packet-out is refused.
  ASSERT_TRUE(net.pause_controller(false));
  EXPECT_TRUE(eventually([&] { return role_stat(stats_of(net.stats_path()), "is_slave_errors") >= 1; }, 10s))
      << stats_of(net.stats_path()).dump() << all_logs();
  EXPECT_TRUE(eventually([&] { return role_stat(stats_of(net.stats_path()), "switches_master") == 0; }, 5s));
  EXPECT_NE(read_file(net.ctl_log()).find("OFPBRC_IS_SLAVE"), std::string::npos) << net.logs();
  // From then on A sends nothing that changes the switch.
  auto aj = stats_of(net.stats_path());
  std::this_thread::sleep_for(1500ms);  // LLDP every 200 ms; the stats file is written every second
  auto aj2 = stats_of(net.stats_path());
  EXPECT_EQ(sent_stat(aj2, "packet_out"), sent_stat(aj, "packet_out")) << aj.dump() << aj2.dump();
  EXPECT_EQ(sent_stat(aj2, "flow_mod"), sent_stat(aj, "flow_mod")) << aj.dump() << aj2.dump();
  EXPECT_GT(role_stat(aj2, "slave_refused"), role_stat(aj, "slave_refused")) << aj.dump() << aj2.dump();

  // A dies. A pair never seen before: only B can answer its packet-ins.
  ASSERT_TRUE(net.kill_controller());
  uint64_t b_flow_mods = sent_stat(stats_of(b_stats), "flow_mod");
  EXPECT_EQ(FaultNet::received(net.ping(0, 2, 3, 0.1)), 3) << all_logs();
  EXPECT_TRUE(eventually(
      [&] {
        bj = stats_of(b_stats);  // written every second
        return bj.value("packet_in", nlohmann::json::object()).value("received", uint64_t(0)) > 0 &&
               sent_stat(bj, "flow_mod") > b_flow_mods;
      },
      3s))
      << bj.dump();

  // A comes back with its old generation id: refused as stale, acts as a slave.
  std::filesystem::remove(net.stats_path());
  ASSERT_TRUE(net.start_controller()) << net.logs();
  EXPECT_TRUE(eventually([&] { return role_stat(stats_of(net.stats_path()), "role_refused") == 1; }, 15s))
      << stats_of(net.stats_path()).dump() << net.logs();
  EXPECT_NE(read_file(net.ctl_log()).find("OFPRRFC_STALE"), std::string::npos) << net.logs();
  aj = stats_of(net.stats_path());
  EXPECT_EQ(aj.value("switches_connected", 0), 1) << aj.dump();
  EXPECT_EQ(role_stat(aj, "switches_master"), 0u) << aj.dump();
  EXPECT_EQ(sent_stat(aj, "flow_mod"), 0u) << aj.dump();
  EXPECT_EQ(sent_stat(aj, "packet_out"), 0u) << aj.dump();
  EXPECT_EQ(role_stat(stats_of(b_stats), "switches_master"), 1u) << stats_of(b_stats).dump();
  EXPECT_EQ(FaultNet::received(net.ping(1, 2, 3, 0.1)), 3) << all_logs();
  EXPECT_TRUE(b.running());
  ::kill(b.pid(), SIGTERM);
  EXPECT_TRUE(b.wait_exit(5)) << read_file(b_log);
}

}  // namespace
}  // namespace flowlab::lab::fault
