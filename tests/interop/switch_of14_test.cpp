// flowlab switch at OpenFlow 1.4 (its default --protocols offer 1.4, 1.3 and
// 1.0), between two namespace hosts the test makes:
//  - os-ken's learning switch written for 1.4 (tests/interop/peers/
//    learning_switch_14.py) drives it: a ping crosses, os-ken read the port
//    descriptions' ethernet property, and the flows it installed keep the
//    importance it gave them (ovs-ofctl -O OpenFlow14 dump-flows);
//  - ovs-ofctl -O OpenFlow14 on its listener: add-flow (with importance),
//    dump-flows, dump-ports-desc (the ethernet property's speeds), dump-ports,
//    a bundle (--bundle add-flows: OFPT_BUNDLE_CONTROL/ADD_MESSAGE), del-flows;
//  - flowlab ofctl -O OpenFlow14 the same way;
//  - both clients' mod-table and dump-table-desc, eviction on a table of 3;
//  - an os-ken app that asked for request forwards hears the group and meter
//    mods ovs-ofctl makes.
// Needs root, os-ken and ovs-ofctl.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

const std::string kOsken = "/usr/bin/osken-manager";

TEST(SwitchOsken14, LearningSwitch14PingPortDescAndImportance) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have(kOsken)) GTEST_SKIP() << "os-ken is not installed (" << kOsken << ")";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("q");
  ASSERT_TRUE(hosts.ok()) << "could not build the namespaces";
  uint16_t of_port = free_tcp_port(), listen = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process osken({kOsken, "--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port", std::to_string(of_port),
                 std::string(FLOWLAB_SOURCE_DIR) + "/tests/interop/peers/learning_switch_14.py"},
                "/tmp/flowlab-osken14-" + pid + ".log");
  ASSERT_TRUE(osken.ok());
  ASSERT_TRUE(eventually([&] { return tcp_listening(of_port); }, 60s)) << "os-ken did not listen:\n"
                                                                       << osken.log();
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--dpid", "0x1", "--port", hosts.port1(), "--port",
              hosts.port2(), "--controller", "tcp:127.0.0.1:" + std::to_string(of_port), "--listen",
              "ptcp:" + std::to_string(listen) + ":127.0.0.1"},
             "/tmp/flowlab-switch-osken14-" + pid + ".log");
  ASSERT_TRUE(sw.ok());
  ASSERT_TRUE(eventually([&] { return sw.log().find("OpenFlow 1.4") != std::string::npos; }, 10s))
      << "switch did not speak 1.4 to os-ken:\n"
      << sw.log() << "\nos-ken log:\n"
      << osken.log();

  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 10s)) << "switch log:\n"
                                                              << sw.log() << "\nos-ken log:\n"
                                                              << osken.log();
  EXPECT_TRUE(hosts.ping(3));
  // os-ken decoded 1.4 port descriptions with their ethernet property.
  EXPECT_NE(osken.log().find("speaks OpenFlow version 0x5"), std::string::npos) << osken.log();
  EXPECT_NE(osken.log().find("port 1 " + hosts.port1() + " curr_speed="), std::string::npos) << osken.log();
  EXPECT_EQ(osken.log().find("switch error"), std::string::npos) << osken.log();

  int st = -1;
  std::string out =
      run_output("ovs-ofctl -O OpenFlow14 dump-flows tcp:127.0.0.1:" + std::to_string(listen), &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("importance=7"), std::string::npos) << "the table-miss flow's importance:\n" << out;
  EXPECT_NE(out.find("importance=3"), std::string::npos) << "a learned flow's importance:\n" << out;
  EXPECT_TRUE(sw.running()) << sw.log();
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

// ovs-ofctl and flowlab ofctl, both at 1.4, on the switch's listener.
TEST(SwitchOvsOfctl14, AddFlowDumpFlowsPortsDescBundleAndForward) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("r");
  ASSERT_TRUE(hosts.ok());
  uint16_t port = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--port", hosts.port1(), "--port", hosts.port2(),
              "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"},
             "/tmp/flowlab-switch-ofctl14" + pid + ".log");
  ASSERT_TRUE(eventually([&] { return tcp_listening(port); }, 10s)) << sw.log();
  const std::string target = " tcp:127.0.0.1:" + std::to_string(port);
  const std::string ovs = "ovs-ofctl -O OpenFlow14 ",
                    ours = std::string(FLOWLAB_BINARY) + " ofctl -O OpenFlow14 ";
  EXPECT_FALSE(hosts.ping(1));

  int st = -1;
  std::string out = run_output(ovs + "add-flow" + target + " in_port=1,importance=5,actions=output:2", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ours + "add-flow" + target + " in_port=2,actions=output:1", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 5s)) << sw.log();
  EXPECT_TRUE(hosts.ping(3));
  EXPECT_NE(sw.log().find("OpenFlow 1.4"), std::string::npos) << sw.log();

  out = run_output(ovs + "dump-flows" + target, &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_NE(out.find("importance=5, in_port=1 actions=output:2"), std::string::npos) << out;
  EXPECT_NE(out.find("in_port=2 actions=output:1"), std::string::npos) << out;
  EXPECT_EQ(out.find("n_packets=0,"), std::string::npos) << "both flows carried packets:\n" << out;
  std::string mine = run_output(ours + "dump-flows" + target, &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find("OFPST_FLOW reply (OF1.4)"), std::string::npos) << mine;
  EXPECT_NE(mine.find("importance=5, in_port=1 actions=output:2"), std::string::npos) << mine;

  // The ethernet property: ovs-ofctl prints its speeds from it.
  out = run_output(ovs + "dump-ports-desc" + target, &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_NE(out.find("OFPST_PORT_DESC reply (OF1.4)"), std::string::npos) << out;
  EXPECT_NE(out.find(" 1(" + hosts.port1() + "): addr:"), std::string::npos) << out;
  EXPECT_NE(out.find("speed: "), std::string::npos) << out;
  mine = run_output(ours + "dump-ports-desc" + target, &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find(" 1(" + hosts.port1() + "): addr:"), std::string::npos) << mine;
  EXPECT_NE(mine.find("speed: "), std::string::npos) << mine;

  // 1.4's port stats (the ethernet property holds the error counters).
  out = run_output(ovs + "dump-ports" + target + " 1", &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("port  1: rx pkts="), std::string::npos) << out;
  EXPECT_EQ(out.find("rx pkts=0,"), std::string::npos) << out;
  mine = run_output(ours + "dump-ports" + target + " 1", &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find("port  1: rx pkts="), std::string::npos) << mine;

  // A standard 1.4 bundle from ovs-ofctl: both flows or none.
  const std::string flows = "/tmp/flowlab-of14-bundle" + pid + ".txt";
  std::ofstream(flows)
      << "priority=9,in_port=1,tcp,actions=output:2\npriority=9,in_port=2,tcp,actions=output:1\n";
  out = run_output(ovs + "--bundle add-flows" + target + " " + flows, &st);
  EXPECT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "dump-flows" + target + " tcp", &st);
  EXPECT_NE(out.find("priority=9,tcp,in_port=1"), std::string::npos) << out;
  EXPECT_NE(out.find("priority=9,tcp,in_port=2"), std::string::npos) << out;
  // A bundle with a bad flow: nothing of it is applied.
  std::ofstream(flows)
      << "priority=8,in_port=1,udp,actions=output:2\npriority=8,in_port=1,actions=group:77\n";
  out = run_output(ovs + "--bundle add-flows" + target + " " + flows, &st);
  EXPECT_NE(st, 0) << out;
  out = run_output(ovs + "dump-flows" + target + " udp", &st);
  EXPECT_EQ(out.find("priority=8"), std::string::npos) << out;
  // And flowlab ofctl's bundle at 1.4.
  std::ofstream(flows) << "priority=7,in_port=1,udp,actions=output:2\n";
  out = run_output(ours + "--bundle add-flows" + target + " " + flows, &st);
  EXPECT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "dump-flows" + target + " udp", &st);
  EXPECT_NE(out.find("priority=7,udp,in_port=1"), std::string::npos) << out;
  std::remove(flows.c_str());

  out = run_output(ovs + "del-flows" + target, &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_TRUE(eventually([&] { return !hosts.ping(1); }, 5s));
  out = run_output(ours + "dump-flows" + target, &st);
  EXPECT_EQ(out.find("in_port"), std::string::npos) << out;
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

// Table configuration with ovs-ofctl's syntax, both clients: mod-table evict /
// vacancy:L,H / noevict, dump-table-desc (ovs-ofctl reads the switch's table
// descriptions), eviction of the lowest importance from a table of 3, then
// OFPFMFC_TABLE_FULL once eviction is off again.
TEST(SwitchOvsOfctl14, ModTableEvictionVacancyAndTableDesc) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("t");
  ASSERT_TRUE(hosts.ok());
  uint16_t port = free_tcp_port();
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--port", hosts.port1(), "--port", hosts.port2(),
              "--table-size", "3", "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"},
             "/tmp/flowlab-switch-table14" + std::to_string(::getpid()) + ".log");
  ASSERT_TRUE(eventually([&] { return tcp_listening(port); }, 10s)) << sw.log();
  const std::string target = " tcp:127.0.0.1:" + std::to_string(port);
  const std::string ovs = "ovs-ofctl -O OpenFlow14 ",
                    ours = std::string(FLOWLAB_BINARY) + " ofctl -O OpenFlow14 ";
  int st = -1;
  std::string out = run_output(ovs + "mod-table" + target + " 0 evict", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ours + "dump-table-desc" + target, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("OFPST_TABLE_DESC reply (OF1.4)"), std::string::npos) << out;
  EXPECT_NE(out.find("  table 0:\n   eviction=on eviction_flags=IMPORTANCE|LIFETIME\n   vacancy=off"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  table 1:\n   eviction=off"), std::string::npos) << out;
  // ovs-ofctl's vacancy:L,H keeps eviction on (it reads the table's config first, as flowlab ofctl does).
  out = run_output(ovs + "mod-table" + target + " 0 vacancy:20,80", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "dump-table-desc" + target, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("  table 0:\n   eviction=on eviction_flags=IMPORTANCE|LIFETIME\n   vacancy=on "
                     "vacancy_down=20% vacancy_up=80% vacancy=100%"),
            std::string::npos)
      << out;
  // flowlab ofctl changes only its setting's bit.
  out = run_output(ours + "mod-table" + target + " 0 evict", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "dump-table-desc" + target, &st);
  EXPECT_NE(out.find("  table 0:\n   eviction=on eviction_flags=IMPORTANCE|LIFETIME\n   vacancy=on"),
            std::string::npos)
      << out;

  for (int i = 1; i <= 4; ++i) {  // the 4th add evicts in_port=1, importance 1
    out = run_output(ovs + "add-flow" + target + " in_port=" + std::to_string(i) +
                         ",importance=" + std::to_string(i) + ",actions=drop",
                     &st);
    ASSERT_EQ(st, 0) << out << sw.log();
  }
  out = run_output(ovs + "dump-flows" + target, &st);
  EXPECT_EQ(out.find("in_port=1 "), std::string::npos) << out;
  EXPECT_NE(out.find("importance=4, in_port=4 actions=drop"), std::string::npos) << out;
  out = run_output(ours + "dump-table-desc" + target, &st);
  EXPECT_NE(out.find("vacancy_down=20% vacancy_up=80% vacancy=0%"), std::string::npos) << out;

  out = run_output(ours + "mod-table" + target + " 0 noevict", &st);
  ASSERT_EQ(st, 0) << out;
  out = run_output(ovs + "add-flow" + target + " in_port=5,actions=drop", &st);
  EXPECT_NE(st, 0) << out;
  EXPECT_NE(out.find("OFPFMFC_TABLE_FULL"), std::string::npos) << out;
  out = run_output(ours + "mod-table" + target + " 0 vacancy:90,10", &st);
  EXPECT_EQ(st, 2) << out;
  out = run_output(std::string(FLOWLAB_BINARY) + " ofctl -O OpenFlow13 mod-table" + target + " 0 evict", &st);
  EXPECT_EQ(st, 1) << out;
  EXPECT_NE(out.find("needs OpenFlow 1.4"), std::string::npos) << out;
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

// Request forward: an os-ken app at 1.4 (tests/interop/peers/request_forward_14.py)
// asks for group-mod and meter-mod forwards in a set-async; ovs-ofctl at 1.4
// adds a group and a meter on the switch's listener, and os-ken hears both,
// with their ids, in OFPT_REQUESTFORWARD messages it decoded. A group-mod that
// fails (the group exists) is not forwarded.
TEST(SwitchOsken14, RequestForwardOfAnotherControllersGroupAndMeterMods) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have(kOsken)) GTEST_SKIP() << "os-ken is not installed (" << kOsken << ")";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("w");
  ASSERT_TRUE(hosts.ok()) << "could not build the namespaces";
  uint16_t of_port = free_tcp_port(), listen = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process osken({kOsken, "--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port", std::to_string(of_port),
                 std::string(FLOWLAB_SOURCE_DIR) + "/tests/interop/peers/request_forward_14.py"},
                "/tmp/flowlab-osken14-rf-" + pid + ".log");
  ASSERT_TRUE(osken.ok());
  ASSERT_TRUE(eventually([&] { return tcp_listening(of_port); }, 60s)) << "os-ken did not listen:\n"
                                                                       << osken.log();
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--dpid", "0x1", "--port", hosts.port1(), "--port",
              hosts.port2(), "--controller", "tcp:127.0.0.1:" + std::to_string(of_port), "--listen",
              "ptcp:" + std::to_string(listen) + ":127.0.0.1"},
             "/tmp/flowlab-switch-osken14-rf-" + pid + ".log");
  ASSERT_TRUE(sw.ok());
  ASSERT_TRUE(eventually([&] { return osken.log().find("request forward asked") != std::string::npos; }, 20s))
      << "os-ken never set its async config:\n"
      << osken.log() << "\nswitch log:\n"
      << sw.log();
  const std::string target = " tcp:127.0.0.1:" + std::to_string(listen);
  int st = -1;
  std::string out =
      run_output("ovs-ofctl -O OpenFlow14 add-group" + target + " group_id=4,type=all,bucket=output:2", &st);
  ASSERT_EQ(st, 0) << out;
  out =
      run_output("ovs-ofctl -O OpenFlow14 add-group" + target + " group_id=4,type=all,bucket=output:1", &st);
  EXPECT_NE(st, 0) << "a second add of group 4 must fail:\n" << out;
  out = run_output("ovs-ofctl -O OpenFlow14 add-meter" + target + " meter=9,pktps,band=type=drop,rate=100",
                   &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_TRUE(eventually(
      [&] { return osken.log().find("forwarded meter_mod meter_id=9") != std::string::npos; }, 10s))
      << osken.log() << "\nswitch log:\n"
      << sw.log();
  const std::string log = osken.log();
  const size_t g = log.find("forwarded group_mod group_id=4");
  EXPECT_NE(g, std::string::npos) << log;
  EXPECT_EQ(log.find("forwarded group_mod group_id=4", g + 1), std::string::npos)
      << "the failed add was forwarded:\n"
      << log;
  EXPECT_EQ(log.find("switch error"), std::string::npos) << log;
  EXPECT_TRUE(sw.running()) << sw.log();
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

}  // namespace
}  // namespace flowlab::switch_interop
