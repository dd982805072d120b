// OpenFlow 1.4/1.5 flow monitoring of flowlab's switch with real peers, the
// switch between two namespace hosts:
//  - ovs-ofctl -O OpenFlow14 (and 15) monitor on the switch's listener prints
//    the INITIAL flow and then ADDED, MODIFIED and DELETED for what another
//    connection (ovs-ofctl add-flow / mod-flows / del-flows) changes, in the
//    lines it prints for Open vSwitch (a removal without instructions, as
//    1.4 says; Open vSwitch sends them); with ovs-ofctl's default flags (which
//    set OFPFMF_ONLY_OWN, "only this connection's changes" in 1.4) it sees
//    the INITIAL flow and none of the others';
//  - flowlab ofctl -O OpenFlow14 monitor prints the same lines and stops
//    after --count updates;
//  - an os-ken app at 1.4 (tests/interop/peers/flow_monitor_14.py) subscribes
//    and logs the updates' fields (event, table, priority, timeouts, cookie,
//    match, instructions; the removal's reason) for a flow added and deleted.
// flowlab ofctl monitor against Open vSwitch is in ofctl_ovs_test.cpp.
// Needs root, ovs-ofctl and os-ken.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

const std::string kOsken = "/usr/bin/osken-manager";

// Lines of `log` that start with " event=".
std::vector<std::string> events(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string l; std::getline(in, l);)
    if (l.starts_with(" event=")) out.push_back(l);
  return out;
}

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

struct MonitoredSwitch {
  explicit MonitoredSwitch(const std::string& tag)
      : hosts(tag),
        port(free_tcp_port()),
        pid(std::to_string(::getpid())),
        rundir("/tmp/flowlab-monitor-ovsrun-" + tag + pid),
        target("tcp:127.0.0.1:" + std::to_string(port)) {
    std::filesystem::create_directories(rundir);
  }
  ~MonitoredSwitch() { std::filesystem::remove_all(rundir); }
  void start(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {
        FLOWLAB_BINARY, "switch", "--name",      "s1",       "--port",
        hosts.port1(),  "--port", hosts.port2(), "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    sw = std::make_unique<Process>(argv, "/tmp/flowlab-switch-monitor-" + pid + ".log");
  }
  // ovs-ofctl monitor as a process; its unixctl socket in a private run dir.
  std::unique_ptr<Process> ovs_monitor(const std::string& version, const std::string& watch,
                                       const std::string& name) {
    return std::make_unique<Process>(std::vector<std::string>{"env", "OVS_RUNDIR=" + rundir, "ovs-ofctl",
                                                              "-O", version, "monitor", target, watch},
                                     "/tmp/flowlab-monitor-" + name + "-" + pid + ".log");
  }
  std::string ovs_ofctl(const std::string& version, const std::string& args) {
    int st = -1;
    std::string out = run_output("ovs-ofctl -O " + version + " " + args, &st);
    EXPECT_EQ(st, 0) << args << ": " << out << (sw ? sw->log() : "");
    return out;
  }

  TwoHosts hosts;
  uint16_t port;
  std::string pid, rundir, target;
  std::unique_ptr<Process> sw;
};

void ovs_ofctl_monitors(const std::string& version, const std::string& tag) {
  MonitoredSwitch s(tag);
  ASSERT_TRUE(s.hosts.ok()) << "could not build the namespaces";
  s.start();
  ASSERT_TRUE(eventually([&] { return tcp_listening(s.port); }, 10s)) << s.sw->log();
  s.ovs_ofctl(version, "add-flow " + s.target + " priority=5,in_port=1,actions=output:2");
  auto watch = s.ovs_monitor(version, "watch:!own", "all");
  auto own = s.ovs_monitor(version, "watch:", "own");  // ovs-ofctl's default: OFPFMF_ONLY_OWN
  ASSERT_TRUE(eventually([&] { return !events(watch->log()).empty() && !events(own->log()).empty(); }, 10s))
      << watch->log() << own->log() << s.sw->log();
  s.ovs_ofctl(version, "add-flow " + s.target +
                           " priority=7,ip,nw_dst=10.0.0.1,idle_timeout=30,hard_timeout=60,cookie=0x12,"
                           "actions=output:1");
  s.ovs_ofctl(version, "mod-flows " + s.target + " ip,nw_dst=10.0.0.1,actions=output:2");
  s.ovs_ofctl(version, "del-flows " + s.target + " ip");
  const std::vector<std::string> want = {
      " event=INITIAL table=0 cookie=0 in_port=1 actions=output:2",
      " event=ADDED table=0 idle_timeout=30 hard_timeout=60 cookie=0x12 ip,nw_dst=10.0.0.1 actions=output:1",
      " event=MODIFIED table=0 idle_timeout=30 hard_timeout=60 cookie=0x12 ip,nw_dst=10.0.0.1 "
      "actions=output:2",
      " event=DELETED reason=delete table=0 idle_timeout=30 hard_timeout=60 cookie=0x12 ip,nw_dst=10.0.0.1",
  };
  EXPECT_TRUE(eventually([&] { return events(watch->log()).size() >= want.size(); }, 10s))
      << watch->log() << s.sw->log();
  EXPECT_EQ(events(watch->log()), want) << watch->log();
  const std::string tagv = version == "OpenFlow14" ? "(OF1.4)" : "(OF1.5)";
  EXPECT_EQ(count_of(watch->log(), "OFPST_FLOW_MONITOR reply " + tagv), 4u) << watch->log();
  // ONLY_OWN: the flows that match now, none of another connection's changes.
  EXPECT_EQ(events(own->log()), std::vector<std::string>{want[0]}) << own->log();
  EXPECT_TRUE(s.sw->running()) << s.sw->log();
  EXPECT_EQ(s.sw->stop(), 0) << s.sw->log();
}

TEST(SwitchFlowMonitor, OvsOfctlMonitorsAt14) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  ovs_ofctl_monitors("OpenFlow14", "m");
}

TEST(SwitchFlowMonitor, OvsOfctlMonitorsAt15) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  ovs_ofctl_monitors("OpenFlow15", "n");
}

TEST(SwitchFlowMonitor, FlowlabOfctlMonitorPrintsAsOvsOfctlAndStopsAtItsCount) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  MonitoredSwitch s("o");
  ASSERT_TRUE(s.hosts.ok());
  s.start();
  ASSERT_TRUE(eventually([&] { return tcp_listening(s.port); }, 10s)) << s.sw->log();
  s.ovs_ofctl("OpenFlow14", "add-flow " + s.target + " priority=5,in_port=1,actions=output:2");
  Process mon({FLOWLAB_BINARY, "ofctl", "-O", "OpenFlow14", "monitor", s.target, "watch:!own,table=0",
               "--count", "3"},
              "/tmp/flowlab-monitor-ours-" + s.pid + ".log");
  ASSERT_TRUE(eventually([&] { return !events(mon.log()).empty(); }, 10s)) << mon.log() << s.sw->log();
  s.ovs_ofctl("OpenFlow14", "add-flow " + s.target + " priority=7,tcp,tp_dst=80,cookie=0x3,actions=drop");
  s.ovs_ofctl("OpenFlow14", "del-flows " + s.target + " tcp");
  ASSERT_TRUE(eventually([&] { return !mon.running(); }, 10s)) << "still running after 3 updates:\n"
                                                               << mon.log();
  EXPECT_EQ(mon.stop(), 0) << mon.log();
  EXPECT_EQ(events(mon.log()), (std::vector<std::string>{
                                   " event=INITIAL table=0 cookie=0 in_port=1 actions=output:2",
                                   " event=ADDED table=0 cookie=0x3 tcp,tp_dst=80",
                                   " event=DELETED reason=delete table=0 cookie=0x3 tcp,tp_dst=80",
                               }))
      << mon.log();
  EXPECT_NE(mon.log().find("OFPST_FLOW_MONITOR reply (OF1.4) (xid=0x"), std::string::npos) << mon.log();
  // At 1.3 there is no flow monitoring: a clear error, exit code 1.
  int st = -1;
  std::string out =
      run_output(std::string(FLOWLAB_BINARY) + " ofctl -O OpenFlow13 monitor " + s.target + " 2>&1", &st);
  EXPECT_EQ(st, 1) << out;
  EXPECT_NE(out.find("monitor needs OpenFlow 1.4"), std::string::npos) << out;
  EXPECT_EQ(s.sw->stop(), 0) << s.sw->log();
}

TEST(SwitchOsken14, FlowMonitorSubscriberLogsTheUpdates) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have(kOsken)) GTEST_SKIP() << "os-ken is not installed (" << kOsken << ")";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  MonitoredSwitch s("p");
  ASSERT_TRUE(s.hosts.ok());
  uint16_t of_port = free_tcp_port();
  Process osken({kOsken, "--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port", std::to_string(of_port),
                 std::string(FLOWLAB_SOURCE_DIR) + "/tests/interop/peers/flow_monitor_14.py"},
                "/tmp/flowlab-osken-monitor-" + s.pid + ".log");
  ASSERT_TRUE(osken.ok());
  ASSERT_TRUE(eventually([&] { return tcp_listening(of_port); }, 60s)) << osken.log();
  s.start({"--controller", "tcp:127.0.0.1:" + std::to_string(of_port)});
  ASSERT_TRUE(eventually([&] { return tcp_listening(s.port); }, 10s)) << s.sw->log();
  // The INITIAL reply (no flows yet) answers the request's xid.
  ASSERT_TRUE(
      eventually([&] { return osken.log().find("flow monitor reply xid=") != std::string::npos; }, 20s))
      << osken.log() << s.sw->log();
  EXPECT_EQ(osken.log().find("updates=0") == std::string::npos, false) << osken.log();
  s.ovs_ofctl("OpenFlow14", "add-flow " + s.target +
                                " table=2,priority=300,ip,nw_dst=10.0.0.2,idle_timeout=40,cookie=0x77,"
                                "actions=output:2");
  s.ovs_ofctl("OpenFlow14", "del-flows " + s.target + " table=2,ip");
  const std::string added =
      " event=1 table=2 reason=0 priority=300 idle=40 hard=0 cookie=0x77 "
      "match={'eth_type': 2048, 'ipv4_dst': '10.0.0.2'} instructions=[";
  const std::string removed =
      " event=2 table=2 reason=2 priority=300 idle=40 hard=0 "
      "cookie=0x77 match={'eth_type': 2048, 'ipv4_dst': '10.0.0.2'}";
  EXPECT_TRUE(eventually([&] { return osken.log().find(removed) != std::string::npos; }, 10s))
      << osken.log() << s.sw->log();
  const std::string log = osken.log();
  const size_t a = log.find(added);
  ASSERT_NE(a, std::string::npos) << log;
  // ovs-ofctl writes max_len 0 for an output to a port; the update carries the flow's own.
  EXPECT_NE(log.find("OFPActionOutput(len=16,max_len=0,port=2,type=0)", a), std::string::npos) << log;
  EXPECT_LT(a, log.find(removed)) << log;
  EXPECT_EQ(log.find("switch error"), std::string::npos) << log;
  EXPECT_EQ(log.find("Encountered an error while parsing"), std::string::npos) << log;
  EXPECT_EQ(s.sw->stop(), 0) << s.sw->log();
}

}  // namespace
}  // namespace flowlab::switch_interop
