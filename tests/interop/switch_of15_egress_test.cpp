// OpenFlow 1.5 egress tables through real traffic: flowlab ofctl makes table 1
// the first egress table (a 1.5 table features request), ovs-ofctl -O
// OpenFlow15 installs ingress flows that write an output into the action set
// and egress flows that match actset_output. h1's pings cross while the
// egress table lets them leave, stop when an egress flow for port 2 clears the
// action set, and cross again when it goes; the egress flow counts them.
// The egress rules answer ovs-ofctl with the spec's errors. (Open vSwitch 3.1
// itself has no egress processing: it cannot be the other end here.) Needs
// root and ovs-ofctl.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

TEST(SwitchOvsOfctl15, EgressTableMatchesActsetOutputAndDropsOnePortsPings) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("eg");
  ASSERT_TRUE(hosts.ok());
  uint16_t port = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--port", hosts.port1(), "--port", hosts.port2(),
              "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"},
             "/tmp/flowlab-switch-egress15-" + pid + ".log");
  ASSERT_TRUE(eventually([&] { return tcp_listening(port); }, 10s)) << sw.log();
  const std::string target = " tcp:127.0.0.1:" + std::to_string(port);
  const std::string ovs = "ovs-ofctl -O OpenFlow15 ",
                    ours = std::string(FLOWLAB_BINARY) + " ofctl -O OpenFlow15 ";
  int st = -1;
  std::string out = run_output(ours + "set-first-egress-table" + target + " 1", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ours + "dump-table-features" + target, &st);
  ASSERT_EQ(st, 0) << out;
  const size_t t1 = out.find("table 1 (\"table1\"):");
  ASSERT_NE(t1, std::string::npos) << out.substr(0, 2000);
  EXPECT_NE(out.substr(t1, out.find("table 2 (", t1) - t1).find("features=ingress egress first_egress"),
            std::string::npos)
      << out.substr(t1, 400);

  for (const char* f : {"in_port=1,actions=write_actions(output:2)",
                        "in_port=2,actions=write_actions(output:1)", "table=1,priority=0,actions="}) {
    out = run_output(ovs + "add-flow" + target + " '" + f + "'", &st);
    ASSERT_EQ(st, 0) << f << ": " << out << sw.log();
  }
  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 5s)) << sw.log();

  // An egress flow for what leaves by port 2: h1's echo requests go no further.
  out = run_output(
      ovs + "add-flow" + target + " 'table=1,priority=20,actset_output=2,icmp,actions=clear_actions'", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_FALSE(hosts.ping(2)) << "the egress flow did not drop the echo requests";
  out = run_output(ovs + "dump-flows" + target + " table=1", &st);
  ASSERT_EQ(st, 0) << out;
  const size_t at = out.find("actset_output=2");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string line = out.substr(out.rfind('\n', at) + 1, out.find('\n', at) - out.rfind('\n', at) - 1);
  EXPECT_NE(line.find("priority=20,actset_output=2,icmp"), std::string::npos) << line;
  EXPECT_EQ(line.find("n_packets=0,"), std::string::npos) << line;  // it counted the dropped echoes
  std::string mine = run_output(ours + "dump-flows" + target + " table=1", &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find("actset_output=2"), std::string::npos) << mine;

  // For port 1 only (flowlab ofctl's encoder): h1's requests leave again, h2's replies are dropped.
  out = run_output(ovs + "del-flows" + target + " 'table=1,actset_output=2,icmp'", &st);
  ASSERT_EQ(st, 0) << out;
  out = run_output(
      ours + "add-flow" + target + " 'table=1,priority=20,actset_output=1,icmp,actions=clear_actions'", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_FALSE(hosts.ping(2));
  out = run_output(ovs + "del-flows" + target + " 'table=1,actset_output=1,icmp'", &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 5s)) << sw.log();

  // The egress rules, as the switch answers ovs-ofctl.
  out = run_output(ovs + "add-flow" + target + " 'priority=5,actions=goto_table:1'", &st);
  EXPECT_NE(st, 0) << out;
  EXPECT_NE(out.find("OFPBIC_BAD_TABLE_ID"), std::string::npos) << out;
  out = run_output(ovs + "add-flow" + target + " 'table=1,priority=5,actions=write_actions(output:1)'", &st);
  EXPECT_NE(st, 0) << out;
  EXPECT_NE(out.find("OFPBAC_BAD_OUT_PORT"), std::string::npos) << out;
  // Table 1 holds flows: it cannot stop being an egress table.
  out = run_output(ours + "set-first-egress-table" + target + " none", &st);
  EXPECT_NE(st, 0) << out;
  EXPECT_NE(out.find("OFPTFFC_EPERM"), std::string::npos) << out;
  EXPECT_TRUE(sw.running()) << sw.log();
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

}  // namespace
}  // namespace flowlab::switch_interop
