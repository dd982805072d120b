// flowlab switch between two namespace hosts, controlled by os-ken's learning
// switch (OF1.3 and OF1.0): ping and a bounded iperf3 TCP run succeed with veth
// offloads at their defaults. The OF1.0 app also runs against a switch that
// speaks both versions (its table misses follow OF1.0, as OVS's do). Needs
// root, os-ken and iperf3.
#include <gtest/gtest.h>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

const std::string kOsken = "/usr/bin/osken-manager";

void run_learning_switch(const std::string& tag, const std::string& app, const std::string& protocols) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have(kOsken)) GTEST_SKIP() << "os-ken is not installed (" << kOsken << ")";
  if (!have("/usr/bin/iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  TwoHosts hosts(tag);
  ASSERT_TRUE(hosts.ok()) << "could not build the namespaces";
  uint16_t of_port = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process osken({kOsken, "--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port", std::to_string(of_port),
                 std::string(FLOWLAB_SHARED_DIR) + "/peers/" + app},
                "/tmp/flowlab-osken-" + tag + pid + ".log");
  ASSERT_TRUE(osken.ok());
  ASSERT_TRUE(eventually([&] { return tcp_listening(of_port); }, 60s)) << "os-ken did not listen:\n"
                                                                       << osken.log();
  Process sw(
      {FLOWLAB_BINARY, "switch", "--name", "s1", "--dpid", "0x1", "--port", hosts.port1(), "--port",
       hosts.port2(), "--controller", "tcp:127.0.0.1:" + std::to_string(of_port), "--protocols", protocols},
      "/tmp/flowlab-switch-" + tag + pid + ".log");
  ASSERT_TRUE(sw.ok());
  ASSERT_TRUE(eventually(
      [&] {
        return sw.log().find("controller tcp:127.0.0.1") != std::string::npos &&
               sw.log().find("connected") != std::string::npos;
      },
      10s))
      << "switch did not connect:\n"
      << sw.log();

  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 10s)) << "switch log:\n"
                                                              << sw.log() << "\nos-ken log:\n"
                                                              << osken.log();
  EXPECT_TRUE(hosts.ping(3));
  std::string out;
  double gbps = iperf3_tcp(hosts, 3, &out);
  EXPECT_GT(gbps, 0.05) << "iperf3 output:\n" << out << "\nswitch log:\n" << sw.log();
  std::printf("[ switch ] %s through flowlab switch + os-ken: TCP %.2f Gbit/s\n", protocols.c_str(), gbps);
  EXPECT_TRUE(sw.running()) << sw.log();
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

TEST(SwitchOsken, LearningSwitch13PingAndIperf) {
  run_learning_switch("o", "learning_switch_13.py", "OpenFlow13");
}

TEST(SwitchOsken, LearningSwitch10PingAndIperf) {
  run_learning_switch("t", "learning_switch_10.py", "OpenFlow10");
}

// The OF1.0 app installs no table-miss flow: it relies on OF1.0 sending misses
// up. The switch offers 1.3 and 1.0 (its default), os-ken picks 1.0.
TEST(SwitchOsken, LearningSwitch10OnDualProtocolSwitch) {
  run_learning_switch("d", "learning_switch_10.py", "OpenFlow13,OpenFlow10");
}

}  // namespace
}  // namespace flowlab::switch_interop
