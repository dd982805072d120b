// ovs-ofctl against flowlab switch's passive listener: add-flow installs flows
// that forward traffic between two namespace hosts, dump-flows shows them with
// their counters. Needs root and ovs-ofctl.
#include <gtest/gtest.h>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

TEST(SwitchOvsOfctl, AddFlowDumpFlowsAndForward) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("v");
  ASSERT_TRUE(hosts.ok());
  uint16_t port = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--port", hosts.port1(), "--port", hosts.port2(),
              "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"},
             "/tmp/flowlab-switch-ofctl" + pid + ".log");
  ASSERT_TRUE(eventually([&] { return tcp_listening(port); }, 10s)) << sw.log();
  std::string target = " tcp:127.0.0.1:" + std::to_string(port);

  // No flows yet, fail-secure: nothing crosses.
  EXPECT_FALSE(hosts.ping(1));

  int st = -1;
  std::string out =
      run_output("ovs-ofctl -O OpenFlow13 add-flow" + target + " in_port=1,actions=output:2", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output("ovs-ofctl -O OpenFlow13 add-flow" + target + " in_port=2,actions=output:1", &st);
  ASSERT_EQ(st, 0) << out << sw.log();

  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 5s)) << sw.log();
  EXPECT_TRUE(hosts.ping(3));

  out = run_output("ovs-ofctl -O OpenFlow13 dump-flows" + target, &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_NE(out.find("in_port=1"), std::string::npos) << out;
  EXPECT_NE(out.find("actions=output:2"), std::string::npos) << out;
  EXPECT_NE(out.find("in_port=2"), std::string::npos) << out;
  EXPECT_EQ(out.find("n_packets=0,"), std::string::npos) << "both flows carried packets:\n" << out;

  out = run_output("ovs-ofctl -O OpenFlow13 dump-ports" + target, &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_NE(out.find("port  1: rx pkts="), std::string::npos) << out;

  out = run_output("ovs-ofctl -O OpenFlow13 del-flows" + target, &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_TRUE(eventually([&] { return !hosts.ping(1); }, 5s));
  out = run_output("ovs-ofctl -O OpenFlow13 dump-flows" + target, &st);
  EXPECT_EQ(out.find("in_port"), std::string::npos) << out;

  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

}  // namespace
}  // namespace flowlab::switch_interop
