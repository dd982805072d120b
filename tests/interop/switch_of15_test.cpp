// flowlab switch at OpenFlow 1.5 (its default --protocols offer 1.5, 1.4, 1.3
// and 1.0), between two namespace hosts the test makes:
//  - os-ken's learning switch (../shared/peers/learning_switch_13.py) made a
//    1.5 app here (OFP_VERSIONS and the packet-out's in_port in a match):
//    a ping crosses, its flows are there;
//  - ovs-ofctl -O OpenFlow15 on the switch's listener: add-flow with the
//    meter action, tcp_flags and packet_type, dump-flows (the OXS counters),
//    dump-meters and meter-stats (1.5's meter description and statistics),
//    add-group / dump-groups (1.5's buckets), insert-buckets / remove-buckets,
//    dump-ports-desc, and what is not supported answered with its error;
//  - flowlab ofctl -O OpenFlow15 the same way.
// Needs root, os-ken and ovs-ofctl.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

const std::string kOsken = "/usr/bin/osken-manager";

// learning_switch_13.py as a 1.5 app, written to `path`; false if the source changed shape.
bool write_learning_switch_15(const std::string& path) {
  std::ifstream in(std::string(FLOWLAB_SHARED_DIR) + "/peers/learning_switch_13.py");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  auto replace = [&](const std::string& a, const std::string& b) {
    size_t at = s.find(a);
    if (at == std::string::npos) return false;
    while (at != std::string::npos) {
      s.replace(at, a.size(), b);
      at = s.find(a, at + b.size());
    }
    return true;
  };
  if (!replace("ofproto_v1_3", "ofproto_v1_5") ||
      !replace("in_port=in_port, actions=actions", "match=p.OFPMatch(in_port=in_port), actions=actions"))
    return false;
  std::ofstream(path) << s;
  return true;
}

TEST(SwitchOsken15, LearningSwitch15Ping) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have(kOsken)) GTEST_SKIP() << "os-ken is not installed (" << kOsken << ")";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  std::string pid = std::to_string(::getpid());
  const std::string app = "/tmp/flowlab-learning-switch-15-" + pid + ".py";
  ASSERT_TRUE(write_learning_switch_15(app)) << "learning_switch_13.py changed: update the 1.5 rewrite";
  TwoHosts hosts("x");
  ASSERT_TRUE(hosts.ok()) << "could not build the namespaces";
  uint16_t of_port = free_tcp_port(), listen = free_tcp_port();
  Process osken(
      {kOsken, "--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port", std::to_string(of_port), app},
      "/tmp/flowlab-osken15-" + pid + ".log");
  ASSERT_TRUE(osken.ok());
  ASSERT_TRUE(eventually([&] { return tcp_listening(of_port); }, 60s)) << "os-ken did not listen:\n"
                                                                       << osken.log();
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--dpid", "0x1", "--port", hosts.port1(), "--port",
              hosts.port2(), "--controller", "tcp:127.0.0.1:" + std::to_string(of_port), "--listen",
              "ptcp:" + std::to_string(listen) + ":127.0.0.1"},
             "/tmp/flowlab-switch-osken15-" + pid + ".log");
  ASSERT_TRUE(sw.ok());
  ASSERT_TRUE(eventually([&] { return sw.log().find("OpenFlow 1.5") != std::string::npos; }, 10s))
      << "switch did not speak 1.5 to os-ken:\n"
      << sw.log() << "\nos-ken log:\n"
      << osken.log();
  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 10s)) << "switch log:\n"
                                                              << sw.log() << "\nos-ken log:\n"
                                                              << osken.log();
  EXPECT_TRUE(hosts.ping(3));
  EXPECT_EQ(osken.log().find("error"), std::string::npos) << osken.log();
  int st = -1;
  std::string out =
      run_output("ovs-ofctl -O OpenFlow15 dump-flows tcp:127.0.0.1:" + std::to_string(listen), &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("OFPST_FLOW reply (OF1.5)"), std::string::npos) << out;
  EXPECT_NE(out.find("priority=1,in_port="), std::string::npos) << "a learned flow:\n" << out;
  EXPECT_TRUE(sw.running()) << sw.log();
  EXPECT_EQ(sw.stop(), 0) << sw.log();
  std::remove(app.c_str());
}

// ovs-ofctl and flowlab ofctl, both at 1.5, on the switch's listener.
TEST(SwitchOvsOfctl15, FlowsMetersGroupsPortsDescAndRefusals) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("y");
  ASSERT_TRUE(hosts.ok());
  uint16_t port = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--port", hosts.port1(), "--port", hosts.port2(),
              "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"},
             "/tmp/flowlab-switch-ofctl15" + pid + ".log");
  ASSERT_TRUE(eventually([&] { return tcp_listening(port); }, 10s)) << sw.log();
  const std::string target = " tcp:127.0.0.1:" + std::to_string(port);
  const std::string ovs = "ovs-ofctl -O OpenFlow15 ",
                    ours = std::string(FLOWLAB_BINARY) + " ofctl -O OpenFlow15 ";
  EXPECT_FALSE(hosts.ping(1));

  int st = -1;
  std::string out = run_output(ovs + "add-meter" + target + " meter=1,pktps,band=type=drop,rate=100000", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  // 1.5's meter action, first in the actions: the pipeline meters, then outputs.
  out = run_output(ovs + "add-flow" + target + " in_port=1,actions=meter:1,output:2", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ours + "add-flow" + target + " in_port=2,actions=output:1", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 5s)) << sw.log();
  EXPECT_TRUE(hosts.ping(3));
  EXPECT_NE(sw.log().find("OpenFlow 1.5"), std::string::npos) << sw.log();
  // tcp_flags and packet_type (Ethernet) are accepted and kept.
  out = run_output(
      ovs + "add-flow" + target + " 'priority=30,packet_type=(0,0),tcp,tcp_flags=+syn-ack,actions=drop'",
      &st);
  ASSERT_EQ(st, 0) << out << sw.log();

  out = run_output(ovs + "dump-flows" + target, &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_NE(out.find("in_port=1 actions=meter:1,output:2"), std::string::npos) << out;
  EXPECT_NE(out.find("tcp_flags=+syn-ack"), std::string::npos) << out;
  EXPECT_EQ(out.find("n_packets=0, n_bytes=0, in_port=1 actions=meter"), std::string::npos)
      << "the metered flow carried packets (OXS counters):\n"
      << out;
  std::string mine = run_output(ours + "dump-flows" + target, &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find("OFPST_FLOW reply (OF1.5)"), std::string::npos) << mine;
  EXPECT_NE(mine.find("in_port=1 actions=meter:1,output:2"), std::string::npos) << mine;
  // 1.5's meter description (OFPMP_METER_DESC: 1.3's meter config renamed) and statistics:
  // the meter as added, with the flow that uses it and the pings it metered.
  out = run_output(ovs + "dump-meters" + target, &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_NE(out.find("meter=1 pktps bands="), std::string::npos) << out;
  EXPECT_NE(out.find("type=drop rate=100000"), std::string::npos) << out;
  mine = run_output(ours + "dump-meters" + target, &st);
  ASSERT_EQ(st, 0) << mine << sw.log();
  EXPECT_NE(mine.find("(OF1.5)"), std::string::npos) << mine;
  EXPECT_NE(mine.find("type=drop rate=100000"), std::string::npos) << mine;
  out = run_output(ovs + "meter-stats" + target, &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_NE(out.find("meter:1 flow_count:1 "), std::string::npos) << out;
  EXPECT_EQ(out.find("packet_in_count:0 "), std::string::npos) << "the meter counted none of the pings:\n"
                                                               << out;

  out = run_output(ovs + "add-group" + target +
                       " group_id=4,type=select,bucket=weight:3,output:1,bucket=weight:1,output:2",
                   &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "dump-groups" + target, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("group_id=4,type=select"), std::string::npos) << out;
  EXPECT_NE(out.find("weight:3"), std::string::npos) << out;
  mine = run_output(ours + "dump-groups" + target, &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find("group_id=4,type=select"), std::string::npos) << mine;
  // 1.5's insert-buckets / remove-buckets: bucket ids kept and reported (ovs-ofctl
  // leaves out a weight of 1).
  out = run_output(ovs + "insert-buckets" + target +
                       " group_id=4,command_bucket_id=first,bucket=bucket_id:9,weight:2,output:2",
                   &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "dump-groups" + target, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("group_id=4,type=select,bucket=bucket_id:9,weight:2,actions=output:2,"
                     "bucket=bucket_id:0,weight:3,actions=output:1,bucket=bucket_id:1,actions=output:2"),
            std::string::npos)
      << out;
  mine = run_output(ours + "dump-groups" + target, &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find("bucket=bucket_id:9,weight:2,actions=output:2"), std::string::npos) << mine;
  out = run_output(ours + "remove-buckets" + target + " group_id=4,command_bucket_id=0", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "remove-buckets" + target + " group_id=4,command_bucket_id=last", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "dump-groups" + target, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("group_id=4,type=select,bucket=bucket_id:9,weight:2,actions=output:2\n"),
            std::string::npos)
      << out;
  // a bucket id the group does not have: OFPGMFC_UNKNOWN_BUCKET
  out = run_output(ovs + "remove-buckets" + target + " group_id=4,command_bucket_id=77", &st);
  EXPECT_NE(st, 0) << out;
  EXPECT_NE(out.find("OFPGMFC_UNKNOWN_BUCKET"), std::string::npos) << out;

  out = run_output(ovs + "dump-ports-desc" + target, &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_NE(out.find("OFPST_PORT_DESC reply (OF1.5)"), std::string::npos) << out;
  EXPECT_NE(out.find(" 1(" + hosts.port1() + "): addr:"), std::string::npos) << out;
  mine = run_output(ours + "dump-ports-desc" + target, &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find(" 1(" + hosts.port1() + "): addr:"), std::string::npos) << mine;

  out = run_output(ovs + "del-flows" + target, &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_TRUE(eventually([&] { return !hosts.ping(1); }, 5s));
  EXPECT_TRUE(sw.running()) << sw.log();
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

}  // namespace
}  // namespace flowlab::switch_interop
